package sim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"kidx/model"
)

func drain(t *testing.T, src Source) []model.Step {
	st, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Step
	buf := make([]model.Step, 7)
	for {
		n, err := st.Next(buf)
		for _, s := range buf[:n] {
			out = append(out, model.Step{Append: append([]model.Batch(nil), s.Append...), Restart: s.Restart, Recover: s.Recover})
		}
		if err != nil {
			return out
		}
	}
}

// Seeded output is stable: uniform draws min + Int64N(max-min+1) from PCG(seed, 1), pinned
// here by calling math/rand/v2 directly.
func TestUniformGolden(t *testing.T) {
	src, err := NewGenerator("uniform:min=100,max=200", Limits{Batches: 5}, 42, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(42, 1))
	for i, s := range drain(t, src) {
		if want := 100 + r.Int64N(101); s.Append[0].Bytes != want {
			t.Fatalf("batch %d: %d bytes, want %d", i, s.Append[0].Bytes, want)
		}
	}
}

// lognormal:median=M,sigma=S: ln(size) has mean ln(M) and standard deviation S (gonum stat).
func TestLognormalMoments(t *testing.T) {
	src, _ := NewGenerator("lognormal:median=16384,sigma=0.6", Limits{Batches: 20000}, 7, nil)
	var logs []float64
	for _, s := range drain(t, src) {
		logs = append(logs, math.Log(float64(s.Append[0].Bytes)))
	}
	mean, sd := stat.MeanStdDev(logs, nil)
	if math.Abs(mean-math.Log(16384)) > 0.02 || math.Abs(sd-0.6) > 0.02 {
		t.Fatalf("ln size mean %.3f sd %.3f", mean, sd)
	}
}

// follower: appends never exceed fetch unless a single batch does; batches keep their order.
func TestFollowerGroups(t *testing.T) {
	src, err := NewGenerator("follower:fetch=50000,fixed:bytes=16350,records=79", Limits{Batches: 10}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := drain(t, src)
	// 50000 / 16350 = 3 batches per fetch: 3+3+3+1.
	if len(steps) != 4 || len(steps[0].Append) != 3 || len(steps[3].Append) != 1 {
		t.Fatalf("%d appends: %+v", len(steps), steps)
	}
}

// The producer model with linger.ms=0 and a low rate gives one record per batch: 61 + one
// DefaultRecord (null key, value 100 B; zig-zag varints: attributes 1, timestampDelta 1,
// offsetDelta 1, key length -1 in 1, value length 100 -> 200 in 2, value 100, headers 1:
// body 107, whose length 107 -> 214 takes 2 bytes: 109).
func TestProducerLingerZero(t *testing.T) {
	src, err := NewGenerator("producer:rate=1/s,record=fixed(bytes=100),linger.ms=0", Limits{Batches: 3}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range drain(t, src) {
		if b := s.Append[0]; b.Records != 1 || b.Bytes != 61+109 {
			t.Fatalf("batch %+v", b)
		}
	}
}

// Errors name the bad key or value.
func TestSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"lognormal:median=abc":     "median=abc",
		"lognormal:mdian=3":        `"mdian"`,
		"zipf:x=1":                 `"zipf"`,
		"producer:rate=-1/s":       "rate=-1/s",
		"follower:fetch=1048576":   "needs the spec it wraps",
		"mixture:0.5*lognormal+x*": "weight",
	} {
		_, err := NewGenerator(spec, Limits{Batches: 1}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to mention %s", spec, err, want)
		}
	}
}

func BenchmarkLognormalStream(b *testing.B) {
	src, _ := NewGenerator("lognormal:median=16384,sigma=0.6", Limits{Batches: int64(b.N)}, 1, nil)
	st, _ := src.Open()
	bs := st.(BatchStream)
	by, rc := make([]int32, 1<<16), make([]int32, 1<<16)
	b.ResetTimer()
	for {
		if _, err := bs.NextBatches(by, rc, nil); err != nil {
			break
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
}
