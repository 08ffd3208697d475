//! The pool's statistics, snapshot, limits and raw allocations (CPU).
use ek::{Context, DType, Device, Tensor};

#[test]
fn stats_return_to_baseline() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let base = ctx.memory_stats().unwrap();
    {
        let a = Tensor::zeros(&ctx, &[1000], DType::F32).unwrap();
        let _b = a.transpose(0, 0).unwrap().cast(DType::F64).unwrap();
        let st = ctx.memory_stats().unwrap();
        assert!(st.allocated_bytes >= base.allocated_bytes + 12000);
        assert_eq!(st.active_blocks, base.active_blocks + 2);
        assert!(st.peak_allocated_bytes >= st.allocated_bytes);
    }
    let st = ctx.memory_stats().unwrap();
    assert_eq!(st.allocated_bytes, base.allocated_bytes);
    assert_eq!(st.requested_bytes, base.requested_bytes);
    assert_eq!(st.active_blocks, base.active_blocks);
    assert!(st.cached_blocks > 0 || st.reserved_bytes == 0);

    ctx.reset_peaks().unwrap();
    assert_eq!(ctx.memory_stats().unwrap().peak_allocated_bytes, base.allocated_bytes);
    ctx.empty_cache().unwrap();
    let st = ctx.memory_stats().unwrap();
    assert_eq!(st.reserved_bytes, 0);
    assert_eq!(st.segments, 0);
}

#[test]
fn snapshot_lists_live_blocks() {
    let ctx = Context::new(Device::Cpu).unwrap();
    assert!(ctx.snapshot().unwrap().iter().all(|b| b.allocated == 0));
    let t = Tensor::empty(&ctx, &[300], DType::U8).unwrap();
    let snap = ctx.snapshot().unwrap();
    let live: Vec<_> = snap.iter().filter(|b| b.allocated == 1).collect();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].requested, 300);
    assert_eq!(live[0].address, t.data_ptr() as u64);
    assert!(live[0].size >= 300 && live[0].segment_size >= live[0].size);
}

#[test]
fn raw_malloc_and_free() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let p = ctx.malloc(4096, None).unwrap();
    assert!(!p.is_null());
    assert_eq!(ctx.memory_stats().unwrap().active_blocks, 1);
    ctx.free(p, None).unwrap();
    assert_eq!(ctx.free(p, None).unwrap_err().status, ek::Status::INVALID_ARGUMENT);
    assert!(ctx.malloc(0, None).unwrap().is_null());
    ctx.free(std::ptr::null_mut(), None).unwrap();
    ctx.set_fraction(0.5).unwrap();
    assert!(ctx.memory_stats().unwrap().limit_bytes > 0);
    assert!(ctx.set_fraction(1.5).is_err());
}

#[test]
fn snapshot_json_matches_the_snapshot_and_stats() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let _a = Tensor::empty(&ctx, &[300], DType::U8).unwrap();
    let b = Tensor::empty(&ctx, &[100_000], DType::U8).unwrap();
    let _c = Tensor::empty(&ctx, &[3 << 20], DType::U8).unwrap();
    drop(b);
    let path = std::env::temp_dir().join(format!("ek-rust-snapshot-{}.json", std::process::id()));
    ctx.memory_snapshot_json(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(text, ctx.memory_snapshot_json_string().unwrap());
    assert!(text.starts_with("{\n  \"version\": 1,\n  \"device\": {\"type\": \"cpu\""), "{text}");
    let stats = ctx.memory_stats().unwrap();
    let blocks = ctx.snapshot().unwrap();
    assert_eq!(text.matches("\"allocated\": true").count(), blocks.iter().filter(|b| b.allocated == 1).count());
    assert_eq!(text.matches("\"allocated\": ").count(), blocks.len());
    assert!(text.contains(&format!("\"allocated_bytes\": {},", stats.allocated_bytes)));
    assert!(text.contains(&format!("\"reserved_bytes\": {},", stats.reserved_bytes)));
    for b in &blocks {
        assert!(text.contains(&format!("{{\"address\": {}, \"size\": {},", b.address, b.size)));
    }
}

#[test]
fn snapshot_json_errors() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let e = ctx.memory_snapshot_json("/no/such/dir/snapshot.json").unwrap_err();
    assert_eq!(e.status, ek::Status::IO);
    assert!(e.message.contains("ek_memory_write_snapshot_json: cannot write /no/such/dir/snapshot.json"), "{e}");
    assert_eq!(ctx.memory_snapshot_json("").unwrap_err().status, ek::Status::INVALID_ARGUMENT);
    assert_eq!(ctx.memory_snapshot_json("a\0b").unwrap_err().status, ek::Status::INVALID_ARGUMENT);
}
