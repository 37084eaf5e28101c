package p2p

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestMembersProtocolAnswersMembersOnly: a member learns where the others
// are now (the answering peer's own current addresses first); a stranger
// learns nothing.
func TestMembersProtocolAnswersMembersOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := hostLobby(t, 0)
	member, stranger := newTestHost(t), newTestHost(t)
	connect(t, member, p.Host)
	connect(t, stranger, p.Host)
	third := newTestHost(t)
	p.setMembers([]MemberAddr{{ID: p.Host.ID().String()}, {ID: member.ID().String()}, {ID: third.ID().String(), Addrs: addrStrings(third.Addrs())}})
	list, err := AskMembers(ctx, member, p.Host.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != p.Host.ID().String() || len(list[0].Addrs) == 0 || list[2].ID != third.ID().String() || len(list[2].Addrs) == 0 {
		t.Fatalf("a member got %+v", list)
	}
	if _, err := AskMembers(ctx, stranger, p.Host.ID()); err == nil {
		t.Fatal("a stranger was told where the members are")
	}
	// What a peer says of itself replaces what we knew of it; of others
	// it only adds; nobody new is added.
	a, b, x := member.ID().String(), third.ID().String(), stranger.ID().String()
	ours := []MemberAddr{{ID: a, Addrs: []string{"/old-a"}}, {ID: b, Addrs: []string{"/b1"}}}
	theirs := []MemberAddr{{ID: a, Addrs: []string{"/new-a"}}, {ID: b, Addrs: []string{"/b2"}}, {ID: x, Addrs: []string{"/x"}}}
	got, changed := mergeMembers(ours, member.ID(), theirs)
	if !changed || len(got) != 2 || len(got[0].Addrs) != 1 || got[0].Addrs[0] != "/new-a" || len(got[1].Addrs) != 2 {
		t.Fatalf("merge: %+v", got)
	}
	if ours[0].Addrs[0] != "/old-a" {
		t.Fatal("merge changed its input")
	}
}

// TestLearnMembersConcurrently runs learnMembers while the meeting loop
// rewrites the member list, as a roster event and keepMeeting do. Under
// -race this failed when learnMembers read Meta.Members unlocked.
func TestLearnMembersConcurrently(t *testing.T) {
	t.Parallel()
	p := hostLobby(t, 0)
	other := newTestHost(t)
	connect(t, other, p.Host)
	ids := []peer.ID{p.Host.ID(), other.ID()}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() { defer wg.Done(); p.learnMembers(ids) }()
		go func() { defer wg.Done(); p.setMembers(MemberAddrs(p.Host, ids)) }()
	}
	wg.Wait()
	if m := p.members(); len(m) != 2 {
		t.Fatalf("members: %+v", m)
	}
}
