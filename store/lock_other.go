//go:build !unix

package store

import "os"

// lockFile creates the lock file; without flock there is no lock: one
// process per SQLite file is then the operator's care.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
