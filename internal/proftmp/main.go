package main

import (
	"os"
	"runtime/pprof"

	"kidx/reports"
	"kidx/segment"
)

func main() {
	f, _ := os.Create(os.Args[2])
	pprof.StartCPUProfile(f)
	for i := 0; i < 5; i++ {
		switch os.Args[1] {
		case "verify":
			segment.Verify([]string{os.Args[3]}, segment.VerifyOptions{})
		case "deep":
			segment.Verify([]string{os.Args[3]}, segment.VerifyOptions{Deep: true})
		case "analyze":
			reports.AnalyzeDir(os.Args[3], reports.AnalyzeOptions{})
		}
	}
	pprof.StopCPUProfile()
}
