//go:build race

package service

// raceEnabled: the race detector's shadow memory grows with every
// allocation, so RSS says nothing about leaks under it.
const raceEnabled = true
