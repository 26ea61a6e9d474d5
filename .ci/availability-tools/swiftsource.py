"""What the availability gate reads from Swift source text itself (no compiler needed).

- Availability guards: `@available(...)` on a declaration (the whole declaration, body included),
  `if #available(...) { ... }`, `guard #available(...) else { ... }` (the rest of the enclosing
  block), and the inverted `#unavailable` forms (`if #unavailable(...) {} else { guarded }`).
- `#if` blocks that are never compiled for an Apple platform (`os(Linux)`, `canImport(Glibc)`,
  `canImport(FoundationNetworking)`, the `#else` of `canImport(Darwin)`, ...).
- Typed-throws function *types*: `throws(E)` anywhere except the effects clause of a `func`,
  `init` or accessor declaration.

A small lexer skips comments and string literals (raw, multi-line, interpolated), so text there
is never taken for code. Positions are (line, column) with 1-based UTF-8 byte columns, as in the
index store.
"""

from dataclasses import dataclass, field

APPLE_DOMAINS = {"ios": "iOS", "macos": "macOS", "osx": "macOS", "tvos": "tvOS", "watchos": "watchOS",
                 "visionos": "visionOS", "xros": "visionOS"}
UNAVAILABLE = (10_000,)  # "never" on that platform: covers any introduction
DECLARATION_KEYWORDS = {"func", "init", "deinit", "var", "let", "class", "struct", "enum", "protocol",
                        "extension", "actor", "typealias", "subscript", "case", "macro", "associatedtype"}
MODIFIERS = {"public", "private", "fileprivate", "internal", "open", "package", "static", "final", "override",
             "nonisolated", "mutating", "nonmutating", "convenience", "required", "lazy", "weak", "unowned",
             "dynamic", "indirect", "prefix", "postfix", "infix", "consuming", "borrowing", "distributed"}
# Atoms of `#if` conditions, as seen when compiling for any Apple platform.
NEVER_ON_APPLE = {"os": {"Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "Haiku", "PS4"},
                  "canImport": {"Glibc", "Musl", "Bionic", "Android", "WinSDK", "FoundationNetworking",
                                "FoundationXML", "WASILibc", "ucrt"}}
ALWAYS_ON_APPLE = {"canImport": {"Darwin", "ObjectiveC", "Foundation", "Dispatch"}}


@dataclass
class Token:
    kind: str  # "id", "num", "str", "punct", "attr" (@name), "pound" (#name), "directive" (#if ...)
    text: str
    line: int
    column: int
    condition: str = ""  # for directives: the rest of the line

    @property
    def position(self):
        return (self.line, self.column)


class Lexer:
    def __init__(self, text):
        self.s = text  # decoded as latin-1: one character per byte, so columns are byte columns
        self.i = 0
        self.line = 1
        self.line_start = 0
        self.tokens = []

    def column(self, index):
        return index - self.line_start + 1

    def advance_to(self, end):
        while self.i < end:
            if self.s[self.i] == "\n":
                self.line += 1
                self.line_start = self.i + 1
            self.i += 1

    def run(self):
        while self.i < len(self.s):
            token = self.next_token()
            if token is not None:
                self.tokens.append(token)
        return self.tokens

    def next_token(self):
        s, i = self.s, self.i
        c = s[i]
        if c in " \t\r\n\f":
            self.advance_to(i + 1)
            return None
        if s.startswith("//", i):
            end = s.find("\n", i)
            self.advance_to(len(s) if end < 0 else end)
            return None
        if s.startswith("/*", i):
            self.skip_block_comment()
            return None
        line, column = self.line, self.column(i)
        if c == '"' or (c == "#" and self.raw_string_hashes(i) is not None):
            self.skip_string()
            return Token("str", '""', line, column)
        if c == "#" and i + 1 < len(s) and (s[i + 1].isalpha() or s[i + 1] == "_"):
            end = self.identifier_end(i + 1)
            word = s[i:end]
            if word in ("#if", "#elseif", "#else", "#endif"):
                line_end = s.find("\n", end)
                line_end = len(s) if line_end < 0 else line_end
                condition = s[end:line_end].split("//")[0].strip()
                self.advance_to(line_end)
                return Token("directive", word, line, column, condition)
            self.advance_to(end)
            return Token("pound", word, line, column)
        if c == "@" and i + 1 < len(s) and (s[i + 1].isalpha() or s[i + 1] == "_"):
            end = self.identifier_end(i + 1)
            self.advance_to(end)
            return Token("attr", s[i:end], line, column)
        if c == "`":
            end = s.find("`", i + 1)
            end = len(s) - 1 if end < 0 else end
            self.advance_to(end + 1)
            return Token("id", s[i + 1:end], line, column)
        if c.isalpha() or c in "_$" or ord(c) >= 0x80:
            end = self.identifier_end(i)
            self.advance_to(end)
            return Token("id", s[i:end], line, column)
        if c.isdigit():
            end = i + 1
            while end < len(s) and (s[end].isalnum() or s[end] == "_" or
                                    (s[end] == "." and end + 1 < len(s) and s[end + 1].isdigit())):
                end += 1
            self.advance_to(end)
            return Token("num", s[i:end], line, column)
        if s.startswith("->", i):
            self.advance_to(i + 2)
            return Token("punct", "->", line, column)
        self.advance_to(i + 1)
        return Token("punct", c, line, column)

    def identifier_end(self, i):
        s = self.s
        while i < len(s) and (s[i].isalnum() or s[i] in "_$" or ord(s[i]) >= 0x80):
            i += 1
        return i

    def skip_block_comment(self):
        depth, i = 0, self.i
        while i < len(self.s):
            if self.s.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif self.s.startswith("*/", i):
                depth, i = depth - 1, i + 2
                if depth == 0:
                    break
            else:
                i += 1
        self.advance_to(i)

    def raw_string_hashes(self, i):
        j = i
        while j < len(self.s) and self.s[j] == "#":
            j += 1
        return j - i if j < len(self.s) and self.s[j] == '"' and j > i else None

    def skip_string(self):
        s = self.s
        hashes = 0
        while s[self.i] == "#":
            hashes += 1
            self.advance_to(self.i + 1)
        multiline = s.startswith('"""', self.i)
        quote = '"""' if multiline else '"'
        self.advance_to(self.i + len(quote))
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while self.i < len(s):
            if s.startswith(closing, self.i):
                self.advance_to(self.i + len(closing))
                return
            if s.startswith(escape, self.i):
                after = self.i + len(escape)
                if after < len(s) and s[after] == "(":
                    self.advance_to(after + 1)
                    self.skip_interpolation()
                else:
                    self.advance_to(min(after + 1, len(s)))
                continue
            if s[self.i] == "\n" and not multiline:
                return  # unterminated: stop at the line's end
            self.advance_to(self.i + 1)

    def skip_interpolation(self):
        depth = 1
        while self.i < len(self.s) and depth > 0:
            token = self.next_token()
            if token is not None and token.kind == "punct":
                depth += {"(": 1, ")": -1}.get(token.text, 0)


def parse_versions(arguments):
    """`iOS 18, macOS 15.0, *` or `iOS, introduced: 18` or `macOS, unavailable` -> {domain: version}."""
    versions = {}
    groups = [[]]
    for token in arguments:
        if token.kind == "punct" and token.text == ",":
            groups.append([])
        else:
            groups[-1].append(token)
    current = None  # the platform of a long-form attribute
    for group in groups:
        words = [t.text for t in group]
        if not words:
            continue
        domain = APPLE_DOMAINS.get(words[0].lower())
        if domain and len(words) >= 2 and group[1].kind == "num":
            versions[domain] = version_tuple(words[1])
        elif domain and len(words) == 1:
            current = domain
        elif current and words[0] == "introduced" and len(words) >= 3:
            versions[current] = version_tuple(words[2])
        elif current and words[0] in ("unavailable", "obsoleted"):
            versions[current] = UNAVAILABLE
    return versions


def version_tuple(text):
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def implied_vision_os(versions):
    """Swift infers visionOS availability from iOS (iOS 17 = visionOS 1) when visionOS is not named."""
    if "visionOS" not in versions and "iOS" in versions:
        versions = dict(versions)
        ios = versions["iOS"]
        major = ios[0] if ios else 0
        versions["visionOS"] = UNAVAILABLE if ios == UNAVAILABLE else (
            ios if major >= 26 else (max(1, major - 16),) + tuple(ios[1:]) if major >= 17 else (1, 0))
    return versions


@dataclass
class Region:
    start: tuple
    end: tuple
    versions: dict = field(default_factory=dict)

    def contains(self, position):
        return self.start <= position <= self.end


class SourceFile:
    """Guards, Apple-excluded `#if` blocks and typed-throws function types of one Swift file."""

    def __init__(self, text):
        self.tokens = Lexer(text).run()
        self.code = [t for t in self.tokens if t.kind != "directive"]
        self.match = {}
        self.parent = {}  # code index -> index of the innermost enclosing "{", or None
        self.match_brackets()
        self.excluded = self.apple_excluded_regions()
        self.guards = self.guard_regions()
        self.throws_clauses = 0

    def match_brackets(self):
        stacks = {"(": [], "[": [], "{": []}
        closers = {")": "(", "]": "[", "}": "{"}
        for index, token in enumerate(self.code):
            self.parent[index] = stacks["{"][-1] if stacks["{"] else None
            if token.kind != "punct":
                continue
            if token.text in stacks:
                stacks[token.text].append(index)
            elif token.text in closers and stacks[closers[token.text]]:
                opener = stacks[closers[token.text]].pop()
                self.match[opener], self.match[index] = index, opener

    def end_position(self):
        last = self.code[-1] if self.code else Token("punct", "", 1, 1)
        return (last.line + 1, 0)

    # --- guards -------------------------------------------------------------------------------
    def guard_at(self, position):
        versions = {}
        for region in self.guards:
            if region.contains(position):
                for domain, version in region.versions.items():
                    versions[domain] = max(versions.get(domain, ()), tuple(version) + (0,) * (3 - len(version)))
        return versions

    def is_excluded_on_apple(self, position):
        return any(region.contains(position) for region in self.excluded)

    def arguments(self, open_index):
        close = self.match.get(open_index, open_index)
        return self.code[open_index + 1:close], close

    def guard_regions(self):
        regions = []
        code = self.code
        for index, token in enumerate(code):
            has_arguments = index + 1 < len(code) and code[index + 1].text == "("
            if token.kind == "attr" and token.text == "@available" and has_arguments:
                arguments, close = self.arguments(index + 1)
                versions = implied_vision_os(parse_versions(arguments))
                if versions:
                    regions.append(Region(token.position, self.declaration_end(close + 1), versions))
            elif token.kind == "pound" and token.text in ("#available", "#unavailable") and has_arguments:
                arguments, close = self.arguments(index + 1)
                versions = implied_vision_os(parse_versions(arguments))
                region = self.condition_region(index, close, inverted=token.text == "#unavailable")
                if versions and region:
                    regions.append(Region(region[0], region[1], versions))
        return regions

    def declaration_end(self, index):
        """End of the declaration after an attribute whose arguments close at `index - 1`: its
        body's `}`, or its last token before the next statement."""
        code = self.code
        depth, seen_keyword, previous_line = 0, False, None
        while index < len(code):
            token = code[index]
            if depth == 0 and token.kind == "punct" and token.text in ("}", ";"):
                break
            new_line = previous_line is not None and token.line > previous_line
            if depth == 0 and seen_keyword and new_line and (
                    token.kind == "attr" or token.text in DECLARATION_KEYWORDS or token.text in MODIFIERS):
                break
            if token.kind == "id" and token.text in DECLARATION_KEYWORDS:
                seen_keyword = True
            if token.text in ("(", "["):
                depth += 1
            elif token.text in (")", "]"):
                depth -= 1
            elif token.text == "{" and depth == 0:
                close = self.match.get(index)
                return code[close].position if close is not None else self.end_position()
            previous_line = token.line
            index += 1
        return code[index - 1].position if index > 0 else self.end_position()

    def condition_region(self, index, close, inverted):
        """The code an `if`/`guard` availability condition protects."""
        code = self.code
        keyword, j = None, index - 1
        while j >= 0:
            text = code[j].text
            if text in (")", "]", "}") and j in self.match:
                j = self.match[j] - 1
                continue
            if text in ("if", "guard", "while"):
                keyword = text
                break
            if text in ("{", ";"):
                break
            j -= 1
        if keyword is None:
            return None
        body = self.next_open_brace(close + 1)
        if body is None:
            return None
        body_end = self.match.get(body)
        if body_end is None:
            return None
        if keyword == "guard":
            if inverted:  # guard #unavailable(...) else { <available here> }
                return code[body].position, code[body_end].position
            enclosing = self.parent.get(j)
            end = code[self.match[enclosing]].position if enclosing is not None and enclosing in self.match \
                else self.end_position()
            return code[body_end].position, end
        if inverted:  # if #unavailable(...) { ... } else { <available here> }
            if body_end + 2 < len(code) and code[body_end + 1].text == "else" and code[body_end + 2].text == "{":
                other = body_end + 2
                return code[other].position, code[self.match.get(other, other)].position
            return None
        return code[body].position, code[body_end].position

    def next_open_brace(self, index):
        depth = 0
        while index < len(self.code):
            text = self.code[index].text
            if text in ("(", "["):
                depth += 1
            elif text in (")", "]"):
                depth -= 1
            elif text == "{" and depth == 0:
                return index
            index += 1
        return None

    # --- #if blocks ---------------------------------------------------------------------------
    def apple_excluded_regions(self):
        regions, stack = [], []  # stack entries: [start position, taken-so-far, this branch's value]
        for token in self.tokens:
            if token.kind != "directive":
                continue
            if token.text == "#if":
                value = evaluate_condition(token.condition)
                stack.append([token.position, value, value])
            elif not stack:
                continue
            else:
                frame = stack[-1]
                if frame[2] is False:
                    regions.append(Region(frame[0], token.position))
                if token.text == "#endif":
                    stack.pop()
                    continue
                value = True if token.text == "#else" else evaluate_condition(token.condition)
                branch = and3(not3(frame[1]), value)
                frame[0], frame[1], frame[2] = token.position, or3(frame[1], value), branch
        return regions

    # --- typed throws -------------------------------------------------------------------------
    def typed_throws_function_types(self):
        """Positions of `throws(E)` that belong to a function type or closure, not to a declaration."""
        found = []
        code = self.code
        for index, token in enumerate(code):
            if token.text != "throws" or index + 1 >= len(code) or code[index + 1].text != "(":
                continue
            self.throws_clauses += 1
            if self.is_declaration_effect(index):
                continue
            opener = self.closure_literal_start(index)
            if opener is not None and (opener == 0 or code[opener - 1].text != "="):
                continue  # a closure literal passed straight to a parameter: its type needs no metadata
            close = self.match.get(index + 1, index + 1)
            spelled = "throws(" + "".join(t.text for t in code[index + 2:close]) + ")"
            found.append((token.position, spelled))
        return found

    def closure_literal_start(self, index):
        """The `{` of the closure literal whose signature holds the `throws` at `index`, if any."""
        code = self.code
        j = index - 1
        while j >= 0:
            token = code[j]
            if token.text in (")", "]") and j in self.match:
                j = self.match[j] - 1
                continue
            if token.text == "{":
                return j
            if token.kind in ("id", "attr") or token.text in (",", "async"):
                j -= 1
                continue
            return None
        return None

    def is_declaration_effect(self, index):
        code = self.code
        j = index - 1
        while j >= 0 and code[j].text in ("async", "reasync"):
            j -= 1
        if j < 0:
            return False
        if code[j].text == "do":
            return True  # a typed `do throws(E) { ... }` statement: no function type at all
        if code[j].text in ("get", "set", "_read", "_modify", "read", "modify"):
            return True  # an accessor's effects: `get throws(E)`
        if code[j].text != ")" or j not in self.match:
            return False
        before = self.match[j] - 1
        if before < 0:
            return False
        if code[before].text == ">":  # generic parameter clause: func name<T>(...)
            depth, k = 0, before
            while k >= 0:
                depth += {">": 1, "<": -1}.get(code[k].text, 0)
                if depth == 0:
                    break
                k -= 1
            before = k - 1
        if before >= 0 and code[before].text in ("?", "!") and before > 0 and code[before - 1].text == "init":
            return True
        if before >= 0 and code[before].text in ("init", "subscript"):
            return True
        # `func name(` or `func ==(`: walk back over the name (identifier or operator characters)
        k = before
        while k >= 0 and code[k].kind == "punct" and code[k].text not in "(){}[],:;":
            k -= 1
        if k >= 0 and code[k].text == "func":
            return True
        return k >= 1 and code[k].kind == "id" and code[k - 1].text == "func"


def not3(value):
    return None if value is None else not value


def and3(a, b):
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


def or3(a, b):
    if a is True or b is True:
        return True
    return False if a is False and b is False else None


def evaluate_condition(text):
    """Three-valued (True/False/None = depends) value of an `#if` condition on Apple platforms."""
    tokens = Lexer(text).run()
    position = [0]

    def peek():
        return tokens[position[0]].text if position[0] < len(tokens) else None

    def take():
        position[0] += 1
        return tokens[position[0] - 1]

    def primary():
        if peek() == "!":
            take()
            return not3(primary())
        if peek() == "(":
            take()
            value = disjunction()
            if peek() == ")":
                take()
            return value
        if peek() is None:
            return None
        word = take().text
        argument = []
        if peek() == "(":
            take()
            depth = 1
            while peek() is not None:
                token = take()
                depth += {"(": 1, ")": -1}.get(token.text, 0)
                if depth == 0:
                    break
                argument.append(token.text)
        name = "".join(argument[:1])
        if word in ("true", "false"):
            return word == "true"
        if name in NEVER_ON_APPLE.get(word, ()):
            return False
        if name in ALWAYS_ON_APPLE.get(word, ()):
            return True
        return None

    def chain(operand, symbol, combine):
        """`operand (symbol symbol operand)*`, e.g. `a && b && c`, folded with `combine`."""
        value = operand()
        while peek() == symbol and position[0] + 1 < len(tokens) and tokens[position[0] + 1].text == symbol:
            take(), take()
            value = combine(value, operand())
        return value

    def disjunction():
        return chain(lambda: chain(primary, "&", and3), "|", or3)

    return disjunction()
