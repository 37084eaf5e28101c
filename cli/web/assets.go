package web

import (
	"embed"
	"io/fs"
)

//go:embed assets
var embedded embed.FS

// assets are the page's files: index.html, the script, the style sheet
// and one drawing script per game. They are plain files in the
// repository; nothing is built or fetched.
var assets, _ = fs.Sub(embedded, "assets")
