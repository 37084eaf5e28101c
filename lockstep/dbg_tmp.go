package lockstep

import "fmt"

var dbgOn = true

func dbg(f string, a ...any) {
	if dbgOn {
		println(fmt.Sprintf(f, a...))
	}
}
