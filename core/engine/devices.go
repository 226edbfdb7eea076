package engine

import (
	"errors"
	"fmt"
	"io"
)

// A device goes out of service when its backend returns an error wrapping
// backend.ErrDeviceFailed (the CUDA backend does for a sticky CUDA error,
// after which every call on the device fails the same way until the
// process ends). The partition that met the error fails with it; from then
// on the device's workers leave the shared queue to the devices still in
// service, fail the partitions pinned to it at once, and Submit refuses
// requests pinned to it. When no device is left in service every request
// fails, with each device's reason.

// outOfService returns the error that took d out of service, naming the
// device, or nil while d is in service.
func (d *device) outOfService() error {
	f := d.lock.failed()
	if f == nil {
		return nil
	}
	return fmt.Errorf("engine: device %s (index %d) is out of service: %w", d.name, d.index, f)
}

// inService reports whether a device still takes work.
func (e *Engine) inService() bool {
	for _, d := range e.devices {
		if d.lock.failed() == nil {
			return true
		}
	}
	return false
}

// checkInService refuses a request that no device in service may prove:
// one pinned to a device out of service, or any when every device is.
func (e *Engine) checkInService(p Placement) error {
	if i, ok := p.Device(); ok {
		if d := e.byIndex[i]; d != nil {
			return d.outOfService()
		}
		return nil
	}
	if e.inService() {
		return nil
	}
	errs := make([]error, 0, len(e.devices))
	for _, d := range e.devices {
		errs = append(errs, d.outOfService())
	}
	return fmt.Errorf("engine: no device in service: %w", errors.Join(errs...))
}

// take returns the next partition for a worker of d, or nil when the
// engine closes: pinned partitions (d.q, nil for the CPU) and shared ones
// (e.devQ) in the order they become ready; when both are, either. A device
// out of service takes shared partitions only when no device is in service
// (to fail them); one taken as the device failed goes back to the queue.
func (e *Engine) take(d *device) *task {
	for {
		shared := e.devQ
		if d.lock.failed() != nil && e.inService() {
			shared = nil
		}
		var t *task
		select {
		case t = <-d.q:
			return t
		case t = <-shared:
		case <-e.closing:
			return nil
		}
		if d.lock.failed() == nil || !e.inService() {
			return t
		}
		select {
		case e.devQ <- t:
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return nil
		}
	}
}

// closeBackends closes each device's backend (io.Closer, or a Close
// without a result as the CUDA backend's): it frees what the backend keeps
// on its device, such as resident parameter points. Call it once, after
// the workers have stopped.
func (e *Engine) closeBackends() {
	for _, d := range e.devices {
		switch c := d.be.(type) {
		case io.Closer:
			if err := c.Close(); err != nil {
				e.log.Warn("closing a device's backend", "device", d.name, "err", err)
			}
		case interface{ Close() }:
			c.Close()
		}
	}
}
