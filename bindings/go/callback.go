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
