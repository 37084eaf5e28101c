// Package infinitecity is Infinite City (Alderac, 2009) for boardmesh: 2 to
// 6 players build one city of 120 tiles on an unbounded grid, put a control
// marker on every tile they lay, carry out the tile's instruction, and
// score connected groups of at least three tiles they control.
//
// The printed rules do not list the tiles, so the tile set is data: a
// short text (StandardTiles) that the game option "tiles" can replace. Every
// tile whose identity is not yet known to anyone (the draw pile and the
// face-down tiles of the starting plus) is kept as one unordered multiset of
// counts; a tile's identity is fixed by a chance step at the moment it is
// drawn or flipped, so no peer can know it earlier.
//
// The board is a slice of placed tiles sorted by (y, x). A turn is a stack
// of pending tasks (play a tile, pick a target, draw, flip): instructions
// push tasks, the top task says who acts next, and a task that cannot be
// carried out is dropped, so exactly one actor is waiting at any time.
package infinitecity
