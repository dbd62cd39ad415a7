package main

import (
	"fmt"
	"slices"
	"time"
)

// What release measured of every packet.
type timings struct {
	late, verdict, readLag []time.Duration
}

// print writes the summary the bench reads, in microseconds.
func (measured timings) print() {
	fmt.Printf("packets=%d mean_late_us=%.1f median_late_us=%.1f max_late_us=%.1f "+
		"median_verdict_us=%.1f median_read_lag_us=%.1f\n", len(measured.late), micros(mean(measured.late)),
		micros(median(measured.late)), micros(slices.Max(append(measured.late, 0))),
		micros(median(measured.verdict)), micros(median(measured.readLag)))
}

func mean(values []time.Duration) time.Duration {
	var sum time.Duration
	for _, value := range values {
		sum += value
	}
	if len(values) == 0 {
		return 0
	}
	return sum / time.Duration(len(values))
}

func median(values []time.Duration) time.Duration {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

func micros(value time.Duration) float64 { return float64(value.Nanoseconds()) / 1e3 }
