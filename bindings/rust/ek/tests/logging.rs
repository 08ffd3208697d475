//! ek::set_log_callback: messages by each context's level, the previous
//! closure dropped once replaced, panics kept out of C, re-entry refused,
//! replacement while threads log. One test function: the callback is
//! process-wide and libtest runs the functions of a file in parallel.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ek::{Context, ContextConfig, DType, Device, LogLevel, Status, Tensor};

type Seen = Arc<Mutex<Vec<(LogLevel, String)>>>;

fn recorder() -> Seen {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    ek::set_log_callback(move |level, msg| s.lock().unwrap().push((level, msg.to_owned()))).unwrap();
    seen
}

fn context(level: LogLevel) -> Context {
    Context::with_config(Device::Cpu, &ContextConfig::new().log_level(level)).unwrap()
}

/// 1 MiB in a new 2 MiB segment, then back to the device.
fn reserve_and_release(ctx: &Context) {
    drop(Tensor::empty(ctx, &[1 << 18], DType::F32).unwrap());
    ctx.empty_cache().unwrap();
}

fn messages_follow_the_contexts_level() {
    let seen = recorder();
    let ctx = context(LogLevel::Info);
    reserve_and_release(&ctx);
    drop(ctx);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (LogLevel::Info, "context created on cpu:0".to_owned()),
            (LogLevel::Info, "pool cpu:0: reserved a new segment of 2.00 MiB from the device; reserved now 2.00 MiB".into()),
            (
                LogLevel::Info,
                "pool cpu:0: released 1 cached segment (2.00 MiB) to the device by empty_cache; reserved now 0 B".into()
            ),
        ]
    );
    seen.lock().unwrap().clear();
    let ctx = context(LogLevel::Warn);
    reserve_and_release(&ctx);
    assert!(seen.lock().unwrap().is_empty(), "info messages passed a warn context");
    drop(ctx);
    ek::clear_log_callback().unwrap();
}

/// Counts its drops: the previous closure goes once replaced.
struct DropFlag(Arc<AtomicBool>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn replaced_closure_is_dropped() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = DropFlag(dropped.clone());
    ek::set_log_callback(move |_, _| {
        let _ = &flag;
    })
    .unwrap();
    assert!(!dropped.load(Ordering::SeqCst));
    ek::clear_log_callback().unwrap();
    assert!(dropped.load(Ordering::SeqCst), "the replaced closure was not dropped");
}

fn panics_and_reentry_stay_out_of_c() {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let e = errors.clone();
    ek::set_log_callback(move |_, msg| {
        e.lock().unwrap().push(ek::clear_log_callback().unwrap_err());
        panic!("boom: {msg}");
    })
    .unwrap();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // the expected panic prints nothing
    drop(context(LogLevel::Info)); // the panic is caught, the call returns
    std::panic::set_hook(hook);
    ek::clear_log_callback().unwrap();
    let errors = errors.lock().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].status, Status::INVALID_ARGUMENT);
    assert!(errors[0].message.contains("inside the log callback"), "{}", errors[0]);
}

fn replacing_while_threads_log() {
    let count = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let install = |count: &Arc<AtomicUsize>| {
        let c = count.clone();
        ek::set_log_callback(move |_, _| {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    };
    install(&count);
    let swapper = {
        let (count, done) = (count.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                install(&count);
            }
        })
    };
    let workers: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(|| {
                for _ in 0..100 {
                    reserve_and_release(&context(LogLevel::Info));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    swapper.join().unwrap();
    ek::clear_log_callback().unwrap();
    // Created, reserved, released: each message to exactly one closure.
    assert_eq!(count.load(Ordering::SeqCst), 3 * 100 * 3);
}

#[test]
fn log_callback() {
    messages_follow_the_contexts_level();
    replaced_closure_is_dropped();
    panics_and_reentry_stay_out_of_c();
    replacing_while_threads_log();
}
