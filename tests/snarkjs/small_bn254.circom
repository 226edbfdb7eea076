pragma circom 2.0.0;

// A tiny circuit compiled for the default prime (BN254): cuzk must refuse it.
template Square() {
    signal input x;
    signal output y;
    y <== x * x;
}

component main = Square();
