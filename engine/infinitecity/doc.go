// Package infinitecity is Infinite City (Alderac, 2009) for boardmesh: 2 to
// 6 players build one city of 120 tiles on an unbounded grid, put a control
// marker on every tile they lay, carry out the tile's instruction, and
// score connected groups of at least three tiles they control.
//
// The printed rules do not list the tiles, so the tile set is data: a
// short text (StandardTiles) that the game option "tiles" can replace. The
// tiles are one deck of hidden cards (engine.Cards): every zone (the pile,
// the hands, the Library's tiles, a face-down tile) holds handles, a tile's
// kind is public only once it is face up, and a seat knows its own tiles
// through its knowledge. On an open table the beacon answers each opening
// at the step that shows the tile; on a secret one the card layer does,
// and no peer's state holds a tile it may not see (docs/hidden-cards.md).
//
// The board is a slice of placed tiles sorted by (y, x). A turn is a stack
// of pending tasks (play a tile, pick a target, draw, flip): instructions
// push tasks, the top task says who acts next, and a task that cannot be
// carried out is dropped, so exactly one actor is waiting at any time.
package infinitecity
