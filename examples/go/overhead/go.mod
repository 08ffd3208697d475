module example.com/libek-overhead

go 1.19

require github.com/libek/libek/bindings/go v0.0.0

// A checkout of libek; without it, Go fetches the module from its path.
replace github.com/libek/libek/bindings/go => ../../../bindings/go
