// Command quickstart is libek's quickstart in Go: a context on the GPU when
// there is one (else the CPU), a tensor, a few zero-copy views, a strided copy
// back to the host, and the memory pool's statistics (as examples/c/quickstart.c).
//
//	cd examples/go/quickstart && PKG_CONFIG_PATH=<build>/meson-uninstalled LD_LIBRARY_PATH=<build> \
//	  go run .
//
// A module of its own that uses the binding through a replace directive (offline).
package main

import (
	"fmt"
	"log"
	"os"

	"libek/ek"
)

func check[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func main() {
	gpus := check(ek.DeviceCount(ek.CUDA))
	dev := ek.CPUDevice()
	if gpus > 0 {
		dev = ek.CUDADevice(0)
	}
	info := check(dev.Info())
	fmt.Printf("libek %d on %s (%v)\n", ek.Version(), info.Name, dev)

	ctx := check(ek.NewContext(dev))

	// 0, 1, ..., 11 as a 3x4 matrix, then its transpose (a view) made contiguous.
	flat := check(ek.Arange(ctx, 0, 12, 1, ek.Float32))
	m := check(flat.View(3, 4))
	mt := check(m.Transpose(0, 1))
	packed := check(mt.Contiguous())
	col := check(m.Select(1, -1)) // last column: 3, 7, 11

	host := check(ek.ToSlice[float32](packed))
	last := check(ek.ToSlice[float32](col))
	fmt.Println("transpose of arange(12).reshape(3, 4):")
	for r := 0; r < 4; r++ {
		fmt.Printf("  %4.0f %4.0f %4.0f\n", host[3*r], host[3*r+1], host[3*r+2])
	}
	fmt.Printf("last column: %.0f %.0f %.0f\n", last[0], last[1], last[2])

	st := check(ctx.MemoryStats())
	fmt.Printf("pool: %d bytes allocated in %d blocks, %d reserved, %d cache hits\n",
		st.AllocatedBytes, st.ActiveBlocks, st.ReservedBytes, st.CacheHits)

	for _, t := range []*ek.Tensor{col, packed, mt, m, flat} {
		t.Close()
	}
	if err := ctx.Close(); err != nil {
		log.Fatal(err)
	}
	if host[1] != 4 || last[2] != 11 {
		os.Exit(1)
	}
}
