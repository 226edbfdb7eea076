# cuzk — Groth16 proving engine for BLS12-381 and Filecoin.
#
#   make          build bin/cuzk
#   make demo     prove and verify the built-in 2^16-constraint circuit
#   make test     vet, unit tests, race tests, snarkjs/circom2 cross-check
#   make bench    prover benchmarks (slow; results go in BENCHMARKS.md)

GO      ?= go
# go-nvml's cgo wrappers call deprecated NVML functions; keep the build quiet.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations
BIN     := bin
PKGS    := ./...
# Packages with goroutines, run again under the race detector.
RACE    := ./core/msm/ ./core/r1cs/ ./core/params/ ./core/groth16/ ./core/engine/ ./core/throttle/

.PHONY: all build demo test vet test-go test-race test-snarkjs bench clean FORCE

all: build

build: $(BIN)/cuzk

$(BIN)/cuzk: FORCE
	$(GO) build -o $@ ./core/cmd/cuzk

demo: build
	./$(BIN)/cuzk demo

test: vet test-go test-race test-snarkjs

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l core)" || { echo "gofmt needed:"; gofmt -l core; exit 1; }

test-go:
	$(GO) test -count=1 $(PKGS)

test-race:
	$(GO) test -count=1 -race -short $(RACE)

test-snarkjs: build
	tests/snarkjs/run.sh $(BIN)/cuzk

# BENCH_ARGS narrows the run, e.g. make bench BENCH_ARGS='-bench=Prove/2\^16'
BENCH_ARGS ?= -bench=. -benchtime=3x
bench:
	$(GO) test -run='^$$' $(BENCH_ARGS) -timeout=60m ./core/groth16/

clean:
	rm -rf $(BIN) tests/snarkjs/work tests/snarkjs/node_modules

FORCE:
