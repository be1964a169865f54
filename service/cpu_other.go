//go:build !linux

package service

import "time"

// threadCPU is 0 where the thread's time is not available: SnapshotCPU
// stays 0.
func threadCPU() time.Duration { return 0 }
