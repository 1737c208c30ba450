package org.example.shop;

import java.util.List;
import java.util.ArrayList;

/**
 * A shopping cart.
 */
@Deprecated
public class Cart {
    private final List<String> items = new ArrayList<>();

    /** Creates an empty cart. */
    public Cart() {
    }

    // Adds one item.
    public void add(String item) {
        items.add(item);
    }

    public void add(String item, int count) {
        for (int i = 0; i < count; i++) {
            items.add(item);
        }
    }

    public static class Line {
        int quantity;

        int total() {
            return quantity;
        }
    }

    enum State {
        OPEN,
        CLOSED;

        boolean isOpen() {
            return this == OPEN;
        }
    }
}

interface Priced {
    double price();
}

record Money(long cents, String currency) {
    Money {
        if (cents < 0) throw new IllegalArgumentException();
    }
}

class Broken {
    void broken( {
        return;
    }
}
