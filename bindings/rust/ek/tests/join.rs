//! Joining and rearranging against hand-computed values (CPU): concat, stack,
//! flip, roll, repeat, split/chunk/unbind, moveaxis, broadcast_tensors,
//! meshgrid, with a non-contiguous input, mixed dtypes and bad arguments.
use ek::{Context, DType, Device, MeshgridIndexing, Status, Tensor};

fn setup() -> (Context, Tensor) {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::arange(&ctx, 0.0, 6.0, 1.0, DType::I32).unwrap().view(&[2, 3]).unwrap();
    (ctx, t)
}

#[test]
fn concat_and_stack() {
    let (ctx, t) = setup();
    let tt = t.transpose(0, 1).unwrap(); // [3, 2], non-contiguous
    let c = Tensor::concat(&[&t, &tt.transpose(0, 1).unwrap()], -1).unwrap();
    assert_eq!(c.shape(), [2, 6]);
    assert_eq!(c.to_vec::<i32>().unwrap(), [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]);
    let f = Tensor::from_slice(&ctx, &[1, 3], &[0.5f64, 1.5, 2.5]).unwrap();
    let m = Tensor::concat(&[&t, &f], 0).unwrap();
    assert_eq!(m.dtype(), DType::F64);
    assert_eq!(m.to_vec::<f64>().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.5, 1.5, 2.5]);
    let s = Tensor::stack(&[&t, &t], -1).unwrap();
    assert_eq!(s.shape(), [2, 3, 2]);
    assert_eq!(s.to_vec::<i32>().unwrap(), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
}

#[test]
fn concat_bad_shapes_name_the_function() {
    let (_ctx, t) = setup();
    let e = Tensor::concat(&[&t, &t.transpose(0, 1).unwrap()], 0).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_concat: xs[1] has shape [3,2] but xs[0] has [2,3]"), "{}", e.message);
    assert_eq!(Tensor::concat(&[], 0).unwrap_err().status, Status::INVALID_ARGUMENT);
    let e = Tensor::stack(&[&t, &t], 3).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains("ek_stack"), "{}", e.message);
}

#[test]
fn flip_roll_repeat() {
    let (_ctx, t) = setup();
    assert_eq!(t.flip(&[-1]).unwrap().to_vec::<i32>().unwrap(), [2, 1, 0, 5, 4, 3]);
    assert_eq!(t.flip(&[0, 1]).unwrap().to_vec::<i32>().unwrap(), [5, 4, 3, 2, 1, 0]);
    assert_eq!(t.roll(&[1, -1], &[0, 1]).unwrap().to_vec::<i32>().unwrap(), [4, 5, 3, 1, 2, 0]);
    assert_eq!(t.transpose(0, 1).unwrap().roll(&[2], &[]).unwrap().to_vec::<i32>().unwrap(), [2, 5, 0, 3, 1, 4]);
    let r = t.repeat(&[2, 1, 2]).unwrap();
    assert_eq!(r.shape(), [2, 2, 6]);
    assert_eq!(r.to_vec::<i32>().unwrap()[..12], [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]);
    let e = t.flip(&[0, -2]).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("ek_flip: dim 0 appears twice in dims"), "{}", e.message);
    let e = t.repeat(&[1, -2]).unwrap_err();
    assert!(e.message.contains("ek_repeat: repeats[1] is -2"), "{}", e.message);
    assert_eq!(t.roll(&[1, 2], &[0]).unwrap_err().status, Status::INVALID_ARGUMENT);
}

#[test]
fn split_chunk_unbind_are_views() {
    let (_ctx, t) = setup();
    let p = t.split(2, 1).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].shape(), [2, 2]);
    assert_eq!(p[1].to_vec::<i32>().unwrap(), [2, 5]);
    p[1].fill(9).unwrap(); // shares t's storage
    assert_eq!(t.to_vec::<i32>().unwrap(), [0, 1, 9, 3, 4, 9]);
    let s = t.split_sizes(&[1, 0, 2], -1).unwrap();
    assert_eq!(s.iter().map(|x| x.shape()).collect::<Vec<_>>(), [vec![2, 1], vec![2, 0], vec![2, 2]]);
    assert_eq!(t.chunk(2, 1).unwrap().len(), 2);
    let rows = t.unbind(0).unwrap();
    assert_eq!(rows[1].to_vec::<i32>().unwrap(), [3, 4, 9]);
    let e = t.split_sizes(&[1, 1], 1).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_view_split_sizes: the 2 sizes add up to 2, but dim 1 has size 3"), "{}", e.message);
    assert!(t.chunk(0, 0).unwrap_err().message.contains("ek_view_chunk: chunks is 0"));
}

#[test]
fn moveaxis_broadcast_meshgrid() {
    let (ctx, t) = setup();
    let m = t.moveaxis(&[0], &[-1]).unwrap();
    assert_eq!(m.shape(), [3, 2]);
    assert_eq!(m.to_vec::<i32>().unwrap(), [0, 3, 1, 4, 2, 5]);
    let col = Tensor::from_slice(&ctx, &[2, 1], &[10i32, 20]).unwrap();
    let b = Tensor::broadcast_tensors(&[&t, &col]).unwrap();
    assert_eq!(b[1].shape(), [2, 3]);
    assert_eq!(b[1].strides(), [1, 0]);
    assert_eq!(b[1].to_vec::<i32>().unwrap(), [10, 10, 10, 20, 20, 20]);
    let x = Tensor::from_slice(&ctx, &[3], &[1.0f32, 2.0, 3.0]).unwrap();
    let y = Tensor::from_slice(&ctx, &[2], &[7.0f32, 8.0]).unwrap();
    let g = Tensor::meshgrid(&[&x, &y], MeshgridIndexing::Xy).unwrap();
    assert_eq!(g[0].shape(), [2, 3]);
    assert_eq!(g[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    assert_eq!(g[1].to_vec::<f32>().unwrap(), [7.0, 7.0, 7.0, 8.0, 8.0, 8.0]);
    let e = Tensor::meshgrid(&[&x, &col.view(&[2]).unwrap()], MeshgridIndexing::Ij).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("ek_meshgrid: xs[1] is int32 but xs[0] is float32"), "{}", e.message);
    let e = Tensor::broadcast_tensors(&[&t, &x.view(&[3, 1]).unwrap()]).unwrap_err();
    assert!(e.message.contains("ek_broadcast_tensors"), "{}", e.message);
}
