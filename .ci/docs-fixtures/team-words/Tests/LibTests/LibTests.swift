@Suite("Envelope decoding (seed 003)")
struct LibTests {}
