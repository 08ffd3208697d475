package ek

// This file holds the //exports of the package: its preamble may only
// declare (cgo copies it into two C files).

/*
#include <stdint.h>
*/
import "C"

import (
	"runtime/cgo"
)

// MemoryEvent says why a memory callback runs (ek_memory_event).
type MemoryEvent int

const (
	// MemoryOutOfMemory: an allocation could not be served; bytes is the
	// request. The pool retries once after the callback.
	MemoryOutOfMemory MemoryEvent = 0
	// MemoryThreshold: reserved memory rose past the threshold; bytes is
	// the reserved total.
	MemoryThreshold MemoryEvent = 1
)

func (e MemoryEvent) String() string {
	switch e {
	case MemoryOutOfMemory:
		return "MemoryOutOfMemory"
	case MemoryThreshold:
		return "MemoryThreshold"
	}
	return "MemoryEvent(?)"
}

// MemoryCallback is called by the pool (see Context.SetMemoryCallback).
type MemoryCallback func(event MemoryEvent, bytes uint64)

//export ekgoMemoryCallback
func ekgoMemoryCallback(h C.uintptr_t, event C.int, bytes C.uint64_t) {
	f, ok := cgo.Handle(h).Value().(MemoryCallback)
	if !ok {
		return
	}
	defer func() { _ = recover() }() // a panic must not unwind into C
	f(MemoryEvent(event), uint64(bytes))
}

//export ekgoLogCallback
func ekgoLogCallback(h C.uintptr_t, level C.int, message *C.char) {
	f, ok := cgo.Handle(h).Value().(LogCallback)
	if !ok {
		return
	}
	msg := C.GoString(message)       // borrowed by C for the call only: copied
	defer func() { _ = recover() }() // a panic must not unwind into C
	f(LogLevel(level), msg)
}
