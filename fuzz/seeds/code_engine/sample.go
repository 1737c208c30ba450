	package store

import (
	"errors"
	"fmt"
)

const (
	MaxItems = 10
	MinItems = 1
)

var ErrFull = errors.New("full")

// Item is one entry.
type Item struct {
	Name string
}

// Store holds items.
type Store interface {
	Put(i Item) error
}

type ID int

// Put adds an item.
func (s *memStore) Put(i Item) error {
	if len(s.items) >= MaxItems {
		return ErrFull
	}
	s.items = append(s.items, i)
	return nil
}

func New() *memStore {
	return &memStore{}
}

func broken( {
	fmt.Println("x")
}
