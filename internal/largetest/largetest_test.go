package largetest

import "testing"

func TestEnabledOnlyForOne(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "": false, "0": false, "true": false} {
		t.Setenv(EnvVar, v)
		if got := Enabled(); got != want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", EnvVar, v, got, want)
		}
	}
}

func TestSkipSkipsUnlessEnabled(t *testing.T) {
	t.Setenv(EnvVar, "")
	skipped := true
	t.Run("off", func(t *testing.T) {
		Skip(t, "large")
		skipped = false
	})
	if !skipped {
		t.Error("Skip did not skip with the variable unset")
	}
	t.Setenv(EnvVar, "1")
	ran := false
	t.Run("on", func(t *testing.T) {
		Skip(t, "large")
		ran = true
	})
	if !ran {
		t.Error("Skip skipped with the variable at 1")
	}
}
