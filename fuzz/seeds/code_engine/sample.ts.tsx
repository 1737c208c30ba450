import { readFile } from "fs";
import * as path from "path";

/** Parses a number. */
export function parse(value: string): number;
export function parse(value: number): number;
export function parse(value: string | number): number {
  return Number(value);
}

// Adds one.
const increment = (n: number): number => n + 1;

let handler = function named(event: Event) {
  console.log(event);
};

export interface Shape {
  area(): number;
}

export type Point = { x: number; y: number };

enum Color {
  Red,
  Green,
}

/**
 * A shape with corners.
 */
export abstract class Polygon implements Shape {
  private corners: Point[] = [];

  abstract area(): number;

  scale(by: number): void;
  scale(by: Point): void;
  scale(by: number | Point): void {
    this.corners = this.corners.map((c) => c);
  }

  *vertices(): Generator<Point> {
    yield* this.corners;
  }
}

export default class Square extends Polygon {
  area(): number {
    return 1;
  }
}

function* ids() {
  yield 1;
}

function broken(a: number {
  return a;
}

console.log(path.join("a", "b"), readFile);

namespace Geometry {
  export class Vec {
    @memoize()
    length(): number {
      return 0;
    }
  }
}
