package ek_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

func TestMemorySnapshotJSON(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	var live []*ek.Tensor
	for _, n := range []int64{300, 100000, 5000, 3 << 20} {
		x, err := ek.Empty(ctx, []int64{n}, ek.Uint8)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, x)
	}
	live[1].Close()
	defer func() {
		for _, x := range live {
			x.Close()
		}
	}()
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if err := ctx.WriteMemorySnapshotJSON(path); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ctx.MemorySnapshotJSON()
	if err != nil || string(again) != string(text) {
		t.Fatalf("bytes differ from the file (%v)", err)
	}
	var doc struct {
		Version  int
		Device   struct{ Type, Name string }
		Stats    map[string]float64
		Segments []struct {
			Address, Size uint64
			Blocks        []struct {
				Address, Size, Requested uint64
				StreamID                 uint64 `json:"stream_id"`
				Allocated                bool
			}
		}
	}
	if err := json.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	stats, _ := ctx.MemoryStats()
	blocks, _ := ctx.Snapshot()
	n, allocated := 0, uint64(0)
	for _, seg := range doc.Segments {
		for _, b := range seg.Blocks {
			if b.Address != blocks[n].Address || b.Size != blocks[n].Size || b.Allocated != blocks[n].Allocated {
				t.Fatalf("block %d: %+v, snapshot %+v", n, b, blocks[n])
			}
			if b.Allocated {
				allocated += b.Size
			}
			n++
		}
	}
	if doc.Version != 1 || doc.Device.Type != "cpu" || n != len(blocks) || allocated != stats.AllocatedBytes ||
		uint64(doc.Stats["reserved_bytes"]) != stats.ReservedBytes || len(doc.Stats) != 22 {
		t.Fatalf("doc %+v against stats %+v and %d blocks", doc, stats, len(blocks))
	}

	err = ctx.WriteMemorySnapshotJSON(filepath.Join(t.TempDir(), "missing", "x.json"))
	if !errors.Is(err, ek.StatusIO) || !strings.Contains(err.Error(), "cannot write ") {
		t.Fatalf("unwritable path: %v", err)
	}
	if err := ctx.WriteMemorySnapshotJSON("a\x00b"); !errors.Is(err, ek.StatusInvalidArgument) {
		t.Fatalf("NUL in path: %v", err)
	}
}
