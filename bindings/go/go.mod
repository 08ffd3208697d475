module libek/ek

go 1.19
