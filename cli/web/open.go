package web

import (
	"os"
	"os/exec"
)

// OpenBrowser opens url in the desktop's browser when there is one: it
// runs xdg-open if it is installed and a display is set, and reports
// whether it started it. It never waits for the browser and never fails
// the game; without a browser the printed URL is the way in.
func OpenBrowser(url string) bool {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false
	}
	prog, err := exec.LookPath("xdg-open")
	if err != nil {
		return false
	}
	cmd := exec.Command(prog, url)
	if cmd.Start() != nil {
		return false
	}
	go cmd.Wait() // reap it; xdg-open returns at once
	return true
}
