package store

import (
	"time"

	"github.com/assay-eval/assay"
)

// TrendPoint is one complete run's value of a measure.
type TrendPoint struct {
	RunID     string    `json:"run_id"`
	StartedAt time.Time `json:"started_at"`
	Value     float64   `json:"value"`
	N         int       `json:"n"`
}

// CaseOutcome is one case trial in one run, as the index keeps it.
type CaseOutcome struct {
	RunID      string             `json:"run_id"`
	Status     assay.RunStatus    `json:"status"`
	StartedAt  time.Time          `json:"started_at"`
	Trial      int                `json:"trial"`
	Pass       *bool              `json:"pass"`
	ErrorClass string             `json:"error_class,omitempty"`
	LatencyMs  *float64           `json:"latency_ms"`
	Metrics    map[string]float64 `json:"metrics,omitempty"`
}
