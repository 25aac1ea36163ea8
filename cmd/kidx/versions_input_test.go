package main

import (
	"strings"
	"testing"

	"kidx/logdir"
	"kidx/model"
)

const releaseLinesText = "the release lines are 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)"

// --kafka-version takes what Kafka users write (issue 11): "4" was refused while "9.9.9" ran
// with trunk's rules. Each form is accepted by the commands that run the model (sim:
// model.ParseKafkaVersion) and by those that judge files (verify: logdir.ParseRelease); what
// no release is is refused with exit 2, naming the release lines.
func TestKafkaVersionAsUsersWriteIt(t *testing.T) {
	w := workloadFile(t, "")
	golden := "../../testdata/kafka-golden/blog-i4096/files"
	// The era each form runs, by hand from the era table (kidx help versions).
	for v, era := range map[string]string{
		"3.6": "2.0-3.6", "3.6.1": "2.0-3.6", "4": "3.7-4.0.0", "0.10.2.1": "0.10.2", "3.7.0-SNAPSHOT": "3.7-4.0.0", "4.5": "4.5-trunk",
	} {
		d, _ := simJSONOf(t, "--workload", w, "--kafka-version", v)
		if d.Era != era {
			t.Errorf("sim --kafka-version %s: era %q, want %q", v, d.Era, era)
		}
		if _, errOut, code := runKidx(t, "verify", "--kafka-version", v, golden); code == 2 {
			t.Errorf("verify --kafka-version %s: exit 2: %s", v, errOut)
		}
	}
	for _, v := range []string{"9.9.9", "5.0", "2.9", "3.10", "4.6", "5"} {
		for _, args := range [][]string{
			{"sim", "--workload", w, "--kafka-version", v},
			{"whatif", "--workload", w, "--kafka-version", v},
			{"verify", "--kafka-version", v, golden},
			{"analyze", "--kafka-version", v, golden},
		} {
			_, errOut, code := runKidx(t, args...)
			if code != 2 || !strings.Contains(errOut, "kidx: --kafka-version: kafka version \""+v+"\" is no Apache Kafka release; "+releaseLinesText) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and the release lines", args, code, errOut)
			}
		}
	}
}

// model.ParseKafkaVersion (sim, whatif, write) and logdir.ParseRelease (verify, analyze,
// explain) read every version string alike: the same accepted, the same numbers.
func TestVersionParsersAgree(t *testing.T) {
	for _, v := range []string{
		"4", "3", "1", "0", "5", "3.6", "3.6.1", "0.10.2.1", "0.8", "0.8.2.2", "0.11.0.3", "1.1.1", "2.8.2", "2.9",
		"3.9.1", "3.10", "4.0", "4.0.1", "4.4.0", "4.5.0-SNAPSHOT", "4.6", "9.9.9", "5.0", "0.7.2", "0.12", "1.2",
		"4.1.0.1", "0.10.2.1.1", "", "x.y", "4.", "+4", " 3.6.1 ",
	} {
		m, merr := model.ParseKafkaVersion(v)
		s, serr := logdir.ParseRelease(v)
		if (merr == nil) != (serr == nil) {
			t.Errorf("%q: model %v, segment %v", v, merr, serr)
			continue
		}
		if merr == nil && (m.Major != s.Major || m.Minor != s.Minor || m.Patch != s.Patch) {
			t.Errorf("%q: model %v, segment %v", v, m, s)
		}
	}
}
