module libek/examples/overhead

go 1.19

require libek/ek v0.0.0

replace libek/ek => ../../../bindings/go
