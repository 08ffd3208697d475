package ek

/*
#include "ekgo.h"
*/
import "C"

import "fmt"

// Device is a device by value (ek_device).
type Device struct {
	Type  DeviceType
	Index int
}

// CPUDevice is the host.
func CPUDevice() Device { return Device{CPU, 0} }

// CUDADevice is GPU i.
func CUDADevice(i int) Device { return Device{CUDA, i} }

func (d Device) String() string {
	if d.Type == CPU {
		return "cpu"
	}
	if d.Type == CUDA {
		return fmt.Sprintf("cuda:%d", d.Index)
	}
	return fmt.Sprintf("device(%d):%d", int(d.Type), d.Index)
}

func (d Device) c() C.ek_device {
	return C.ek_device{_type: C.ek_device_type(d.Type), index: C.int(d.Index)}
}

func deviceFromC(d C.ek_device) Device { return Device{DeviceType(d._type), int(d.index)} }

// DeviceInfo holds a device's properties (ek_device_info).
type DeviceInfo struct {
	Name                       string
	Device                     Device
	ComputeMajor, ComputeMinor int // 0 on the CPU
	Multiprocessors            int // SMs on CUDA, logical cores on the CPU
	TotalMemory                uint64
	L2CacheSize                uint64 // 0 when unknown
}

// DeviceCount is the number of devices of a type: 1 for the CPU, 0 for CUDA
// on a machine without a driver or GPU.
func DeviceCount(t DeviceType) (int, error) {
	var n C.int
	var msg *C.char
	if err := check(C.ekgo_ek_device_get_count(C.ek_device_type(t), &n, &msg), msg); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Info returns the device's properties; StatusNoDevice when it does not exist.
func (d Device) Info() (DeviceInfo, error) {
	var i C.ek_device_info
	var msg *C.char
	if err := check(C.ekgo_ek_device_get_info(d.c(), &i, &msg), msg); err != nil {
		return DeviceInfo{}, err
	}
	return DeviceInfo{
		Name:            C.GoString(&i.name[0]),
		Device:          Device{DeviceType(i._type), int(i.index)},
		ComputeMajor:    int(i.compute_major),
		ComputeMinor:    int(i.compute_minor),
		Multiprocessors: int(i.multiprocessors),
		TotalMemory:     uint64(i.total_memory),
		L2CacheSize:     uint64(i.l2_cache_size),
	}, nil
}
