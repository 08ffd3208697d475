module github.com/libek/libek/bindings/go

go 1.19
