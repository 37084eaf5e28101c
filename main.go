// Command boardmesh plays board games between peers with no server.
package main

import "github.com/boardmesh/boardmesh/cli"

func main() { cli.Execute() }
