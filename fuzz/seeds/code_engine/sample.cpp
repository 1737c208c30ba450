#include <string>
#include <vector>

namespace geo {

/// A shape.
class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;

    double scaled(double by) const {
        return area() * by;
    }

    struct Bounds {
        double w;
        double h;
    };
};

// Squares a number.
template <typename T>
T square(T x) {
    return x * x;
}

int add(int a, int b) {
    return a + b;
}

double add(double a, double b) {
    return a + b;
}

}  // namespace geo

class Circle : public geo::Shape {
public:
    double area() const override;

private:
    double r_ = 1.0;
};

/** The area of a circle. */
double Circle::area() const {
    return 3.14159 * r_ * r_;
}

int broken(int a {
    return a;
}
