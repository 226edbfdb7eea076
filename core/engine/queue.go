package engine

import (
	"container/heap"
	"fmt"
	"strings"
)

// Priority orders jobs: higher first, FIFO within a level.
type Priority int

// Priorities, lowest first.
const (
	Low Priority = iota
	Normal
	High
	Critical
	numPriorities
)

func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return fmt.Sprintf("priority(%d)", int(p))
}

// ParsePriority reads "low", "normal", "high" or "critical".
func ParsePriority(s string) (Priority, error) {
	for p := Low; p < numPriorities; p++ {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown priority %q (low, normal, high, critical)", s)
}

// queue is a priority heap of jobs. Each job knows its index, so a
// cancelled job leaves in O(log n).
type queue struct {
	items []*job
	seq   uint64
}

func (q *queue) Len() int { return len(q.items) }
func (q *queue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.req.Priority != b.req.Priority {
		return a.req.Priority > b.req.Priority
	}
	return a.seq < b.seq
}
func (q *queue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index = i
	q.items[j].index = j
}
func (q *queue) Push(x any) {
	j := x.(*job)
	j.index = len(q.items)
	q.items = append(q.items, j)
}
func (q *queue) Pop() any {
	n := len(q.items)
	j := q.items[n-1]
	q.items[n-1] = nil
	q.items = q.items[:n-1]
	j.index = -1
	return j
}

func (q *queue) push(j *job) {
	q.seq++
	j.seq = q.seq
	heap.Push(q, j)
}

// remove takes j out of the queue; it reports false when j was not queued.
func (q *queue) remove(j *job) bool {
	if j.index < 0 || j.index >= len(q.items) || q.items[j.index] != j {
		return false
	}
	heap.Remove(q, j.index)
	return true
}

// takeSameCircuit removes and returns up to max queued jobs of circuit, in
// queue order.
func (q *queue) takeSameCircuit(circuit string, max int) []*job {
	var out []*job
	for max > 0 {
		var best *job
		for _, j := range q.items {
			if j.req.Circuit.ID == circuit && (best == nil || q.Less(j.index, best.index)) {
				best = j
			}
		}
		if best == nil {
			break
		}
		q.remove(best)
		out = append(out, best)
		max--
	}
	return out
}

// depth returns the number of queued jobs per priority.
func (q *queue) depth() [numPriorities]int {
	var d [numPriorities]int
	for _, j := range q.items {
		d[j.req.Priority]++
	}
	return d
}
