package logdir

import (
	"path/filepath"
	"testing"

	"kidx/internal/realdata"
)

// The real log directories' tops read as their README says the brokers left them: a clean
// shutdown or not (and so whether the next start recovers, and how many partitions: every
// one but the metadata log, which KafkaMetadataLog recovers whole at every start), KRaft or
// ZooKeeper from meta.properties, nothing holding .lock in a copy. None of the log-directory
// checks is a problem on them: a healthy broker's directory is healthy.
func TestRealLogDirsAsTheNextStartReadsThem(t *testing.T) {
	root := realdata.Restore(t)
	for _, origin := range realdata.Origins(root) {
		name := filepath.Base(origin)
		r, err := Verify([]string{origin}, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.LogDirs) != 1 || r.LogDirs[0].Path != origin {
			t.Errorf("%s: log dirs %+v", name, r.LogDirs)
			continue
		}
		st := r.LogDirs[0]
		if clean, ok := realdata.CleanShutdown[name]; ok {
			if (st.Clean != nil) != clean || st.NextStart.Recovers == clean {
				t.Errorf("%s: clean shutdown %v, recovers %v; the README says clean=%v", name, st.Clean != nil, st.NextStart.Recovers, clean)
			}
			if n, ok := realdata.SecondCollection[name]; ok && !clean {
				want := n
				if realdata.MetadataLog[name] {
					want--
				}
				if st.NextStart.Partitions != want {
					t.Errorf("%s: the next start recovers %d partitions, want %d", name, st.NextStart.Partitions, want)
				}
			}
		}
		if kraft, ok := realdata.KRaft[name]; ok {
			want := map[bool]string{true: "kraft", false: "zookeeper"}[kraft]
			if st.Mode != want {
				t.Errorf("%s: mode %q, want %q", name, st.Mode, want)
			}
		}
		if (st.NextStart.Metadata != nil) != realdata.MetadataLog[name] {
			t.Errorf("%s: metadata log in the plan %v", name, st.NextStart.Metadata)
		}
		if st.LockedBy != 0 {
			t.Errorf("%s: .lock held by %d in a restored copy", name, st.LockedBy)
		}
		for _, f := range r.Findings {
			switch f.Check {
			case CheckMetaProperties, CheckCleanShutdown, CheckLock, CheckCheckpoint, CheckCheckpointNoDir:
				if f.Severity != SeverityInfo {
					t.Errorf("%s: %s", name, f)
				}
			}
		}
	}
}
