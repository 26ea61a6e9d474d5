@Suite("Lib makes a value from seed: 3, every time")
struct LibTests {}
