package ek

/*
#include "ekgo.h"

// The log trampoline lives here, not in ekgo.h: the flag it sets must be the
// one variable that ekgo_log_in_callback reads, so both stay in this file's
// translation unit. A Go callback runs on the C thread that logs, locked to
// it, so a cgo call it makes runs on that thread and sees the flag.
extern void ekgoLogCallback(uintptr_t handle, int level, char *message);
static __thread int ekgo_in_log_callback;
static void ekgo_log_trampoline(ek_log_level level, const char *message, void *user_data) {
  ekgo_in_log_callback = 1;
  ekgoLogCallback((uintptr_t)user_data, (int)level, (char *)message);
  ekgo_in_log_callback = 0;
}
static int ekgo_log_in_callback(void) { return ekgo_in_log_callback; }
static ek_status ekgo_log_set_callback(uintptr_t h, char **msg) {
  return ekgo_ek_log_set_callback(h ? ekgo_log_trampoline : NULL, (void *)h, msg);
}
*/
import "C"

import (
	"runtime/cgo"
	"sync"
)

// String names the level as EK_LOG_LEVEL spells it ("off", "error", "warn",
// "info", "debug").
func (l LogLevel) String() string {
	switch l {
	case LogOff:
		return "off"
	case LogError:
		return "error"
	case LogWarn:
		return "warn"
	case LogInfo:
		return "info"
	case LogDebug:
		return "debug"
	}
	return "LogLevel(?)"
}

// LogCallback receives libek's log messages (see SetLogCallback).
type LogCallback func(level LogLevel, msg string)

var (
	logMu     sync.Mutex // orders the C call with the update of logHandle
	logHandle cgo.Handle // the installed callback's handle; 0: none
)

// SetLogCallback sends libek's log messages to f instead of stderr, for the
// whole process (ek_log_set_callback); nil restores stderr. What is logged
// follows each context's log level (ContextConfig.LogLevel or EK_LOG_LEVEL):
// nothing by default. f may run on any thread, several at once; a panic in
// it is recovered and discarded. Once SetLogCallback returns, the previous
// callback is never called again. Calling it from inside f is
// StatusInvalidArgument, and f must not wait for a goroutine that calls it;
// messages libek logs while f runs on that thread go to stderr.
func SetLogCallback(f LogCallback) error {
	if C.ekgo_log_in_callback() != 0 {
		return bindingError(StatusInvalidArgument,
			"ek.SetLogCallback: called from inside the log callback (it would wait for itself)")
	}
	var h cgo.Handle
	if f != nil {
		h = cgo.NewHandle(f)
	}
	logMu.Lock()
	defer logMu.Unlock()
	var msg *C.char
	if err := check(C.ekgo_log_set_callback(C.uintptr_t(h), &msg), msg); err != nil {
		if h != 0 {
			h.Delete()
		}
		return err
	}
	if logHandle != 0 {
		logHandle.Delete() // the library no longer calls it
	}
	logHandle = h
	return nil
}
