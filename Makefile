# cuzk — Groth16 proving engine for BLS12-381 and Filecoin.
#
#   make          build bin/cuzk and build/libcuzk.so (with its headers)
#   make demo     prove and verify the built-in 2^16-constraint circuit
#   make dropin-bench  build/dropin_bench: the supraseal-c2 drop-in benchmark
#                 (tests/dropin/README.md)
#   make test     vet, unit tests, race tests, C/Rust/Python binding tests,
#                 snarkjs/circom2 cross-check, the robustness suite
#   make test-robustness  corrupted files and C ABI misuse, each in a child
#                 process (ROBUSTNESS_FULL=1: the full corpus; RELIABILITY.md)
#   make bench    prover benchmarks (slow; results go in BENCHMARKS.md)
#   make install PREFIX=/usr/local   library (and libcuzk_cuda.so when built),
#                 headers and cuzk.pc

GO      ?= go
# go-nvml's cgo wrappers call deprecated NVML functions; keep the build quiet.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations
BIN     := bin
BUILD   := build
PREFIX  ?= /usr/local
VERSION := 0.1.0
PKGS    := ./...
# Packages with goroutines, run again under the race detector.
RACE    := ./core/msm/ ./core/r1cs/ ./core/params/ ./core/groth16/ ./core/engine/ ./core/throttle/ ./core/service/

.PHONY: cuda cuda-test-bin generate all build lib demo dropin-bench test vet test-go test-race test-c test-dropin test-rust test-python test-snarkjs test-robustness bench install clean FORCE

all: build lib

build: $(BIN)/cuzk

# PREFIX is compiled in: the library and the command look for
# libcuzk_cuda.so under $(PREFIX)/lib too.
$(BIN)/cuzk: FORCE
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.installPrefix=$(PREFIX)" -o $@ ./core/cmd/cuzk

# libcuzk.so from capi/ (-buildmode=c-shared), with the hand-written headers
# beside it. Go's generated header is not installed: it goes to
# build/cgo/libcuzk.h, where tests/c/run.sh compiles the hand-written
# headers against it.
lib: FORCE
	$(GO) build -buildmode=c-shared -ldflags "-X main.installPrefix=$(PREFIX)" -o $(BUILD)/libcuzk.so ./capi
	mkdir -p $(BUILD)/cgo && mv -f $(BUILD)/libcuzk.h $(BUILD)/cgo/libcuzk.h
	cp include/cuzk.h include/supraseal_c2.h $(BUILD)/

# libcuzk_cuda.so where nvcc exists (CUDA_ARCH=sm_90 narrows the targets).
cuda:
	@if command -v nvcc >/dev/null 2>&1; then $(MAKE) -j4 -C cuda OUT=$(CURDIR)/$(BUILD) $(if $(CUDA_ARCH),CUDA_ARCH=$(CUDA_ARCH)); \
	else echo "make cuda: nvcc not found, skipping libcuzk_cuda.so (cuzk runs on its CPU backend)"; fi

# The GPU tests' Go binary and bin/cuzk, built here and run on a GPU host by
# cuda/run-device.sh (which needs no Go there).
cuda-test-bin: $(BIN)/cuzk
	$(GO) test -c -o $(BUILD)/cuda.test ./core/backend/cuda

# The kernel ABI's repeated parts, generated from cuda/cuzk_cuda.h
# (cuda/api_gen.h, cuda/api_gen.cu, core/backend/cuda/calls_gen.h and
# symbols_gen.go); TestABIGenerated in make test checks they are current.
generate:
	$(GO) test ./core/backend/cuda -run '^TestABIGenerated$$' -count=1 -update

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(BUILD)/libcuzk.so $(DESTDIR)$(PREFIX)/lib/
	if [ -f $(BUILD)/libcuzk_cuda.so ]; then install -m 0755 $(BUILD)/libcuzk_cuda.so $(DESTDIR)$(PREFIX)/lib/; fi
	install -m 0644 include/cuzk.h include/supraseal_c2.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' cuzk.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cuzk.pc

demo: build
	./$(BIN)/cuzk demo

test: vet test-go test-race test-c test-dropin test-rust test-python test-snarkjs test-robustness

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)
	@test -z "$$(gofmt -l core)" || { echo "gofmt needed:"; gofmt -l core; exit 1; }

test-go:
	$(GO) test -count=1 $(PKGS)

test-race:
	$(GO) test -count=1 -race -short $(RACE)

test-c: build lib
	tests/c/run.sh

# The drop-in bench links only libcuzk.so: this plain cc line also builds it
# on a machine without Go (tests/dropin/README.md).
dropin-bench: lib
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude tests/dropin/dropin_bench.c \
		-L$(BUILD) -lcuzk -lpthread -ldl -Wl,-rpath,'$$ORIGIN' -o $(BUILD)/dropin_bench

test-dropin: build lib
	tests/dropin/run.sh

test-rust: build lib
	tests/rust/run.sh

test-python: build lib
	tests/python/run.sh

test-snarkjs: build
	tests/snarkjs/run.sh $(BIN)/cuzk

# Quick corpus by default (a few minutes on 2 cores); ROBUSTNESS_FULL=1 for
# the full one. Cases in tests/robustness/known-defects.txt do not fail it.
test-robustness: build lib
	tests/robustness/run.sh

# BENCH_ARGS narrows the run, e.g. make bench BENCH_ARGS='-bench=Prove/2\^16'
BENCH_ARGS ?= -bench=. -benchtime=3x
bench:
	$(GO) test -run='^$$' $(BENCH_ARGS) -timeout=60m ./core/groth16/ ./core/engine/

clean:
	rm -rf $(BIN) $(BUILD) tests/*/work tests/snarkjs/node_modules bindings/rust/target

FORCE:
