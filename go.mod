module github.com/boardmesh/boardmesh

go 1.26
