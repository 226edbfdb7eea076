package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestManual(t *testing.T) {
	c := NewManual()
	start := c.Now()
	select {
	case <-c.After(0):
	default:
		t.Fatal("After(0) fires at once")
	}
	late, soon := c.After(time.Hour), c.After(time.Minute)
	require.Equal(t, 2, c.Pending())
	c.Advance(59 * time.Second)
	require.Len(t, soon, 0)
	c.Advance(time.Second)
	require.Equal(t, start.Add(time.Minute), <-soon)
	require.Len(t, late, 0)
	require.Equal(t, 1, c.Pending())
	c.Advance(time.Hour)
	require.Equal(t, start.Add(time.Hour+time.Minute), <-late)
	require.Zero(t, c.Pending())
	require.IsType(t, Real{}, Or(nil))
	require.Same(t, c, Or(c))
}
