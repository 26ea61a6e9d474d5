"""The two hand-kept lists of the availability gate. Keep both short and give every entry a reason.

HAND_TABLE: Apple versions for APIs whose Linux symbol graph carries none. The corelibs modules
(FoundationNetworking, Dispatch, most of corelibs Foundation) are built from swift-corelibs sources
that declare no Apple availability, so the toolchain's data cannot tell when Apple added them.
Keys are symbol-graph paths (type.member(labels:)); an entry for a type also covers its members.
Versions are copied from Apple's documentation pages (developer.apple.com/documentation/foundation/
<path>, "availability"), checked 2026: iOS / macOS / tvOS / watchOS, visionOS 1 for all of them.
Entries at or below the package's floor are listed too, so that a lookup that finds them says
"checked, fine" instead of "unknown".

ALLOWED: uses the gate must not report, because the Linux build resolves them to a newer symbol
than an Apple build with the package's deployment target does. Matched by symbol-graph path (or its
last components); with `implicit_only`, only when the compiler inserted the reference.
"""


def _v(ios, macos, tvos, watchos, visionos=(1, 0)):
    return {"iOS": ios, "macOS": macos, "tvOS": tvos, "watchOS": watchos, "visionOS": visionos}


_SWIFT_CONCURRENCY = _v((15, 0), (12, 0), (15, 0), (8, 0))  # the async URLSession methods

HAND_TABLE = {
    # URLSession's async methods (Apple: "iOS 15.0+ macOS 12.0+ tvOS 15.0+ watchOS 8.0+").
    "URLSession.data(for:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.data(from:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.upload(for:from:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.upload(for:fromFile:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.download(for:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.download(from:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.download(resumeFrom:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.bytes(for:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.bytes(from:delegate:)": _SWIFT_CONCURRENCY,
    "URLSession.AsyncBytes": _SWIFT_CONCURRENCY,
    # A per-task delegate (Apple: URLSessionTask/delegate, iOS 15.0+).
    "URLSessionTask.delegate": _SWIFT_CONCURRENCY,
    # WebSockets (Apple: URLSessionWebSocketTask, iOS 13.0+ macOS 10.15+ tvOS 13.0+ watchOS 6.0+).
    "URLSessionWebSocketTask": _v((13, 0), (10, 15), (13, 0), (6, 0)),
    "URLSession.webSocketTask(with:)": _v((13, 0), (10, 15), (13, 0), (6, 0)),
    "URLSession.webSocketTask(with:protocols:)": _v((13, 0), (10, 15), (13, 0), (6, 0)),
    # Newer than the floor (Apple: urlSession(_:didCreateTask:), iOS 16.0+ macOS 13.0+ ...).
    "URLSessionTaskDelegate.urlSession(_:didCreateTask:)": _v((16, 0), (13, 0), (16, 0), (9, 0)),
    # Resumable uploads (Apple: uploadTask(withResumeData:), iOS 17.0+ macOS 14.0+ tvOS 17.0+ watchOS 10.0+).
    "URLSession.uploadTask(withResumeData:)": _v((17, 0), (14, 0), (17, 0), (10, 0)),
    "URLSession.uploadTask(withResumeData:completionHandler:)": _v((17, 0), (14, 0), (17, 0), (10, 0)),
    "URLSessionUploadTask.cancel(byProducingResumeData:)": _v((17, 0), (14, 0), (17, 0), (10, 0)),
    "URLSessionUploadTask.cancelByProducingResumeData()": _v((17, 0), (14, 0), (17, 0), (10, 0)),
    "URLSessionTaskDelegate.urlSession(_:task:needNewBodyStreamFrom:completionHandler:)":
        _v((17, 0), (14, 0), (17, 0), (10, 0)),
}

ALLOWED = {
    # `for await x in sequence` calls `next(isolation:)` where the Swift 6 runtime is there; the
    # Linux build records it for every iterator, an Apple build below iOS 18 / macOS 15 calls
    # `next()` instead. Matches any iterator's `next(isolation:)` the compiler inserted.
    "next(isolation:)": {"implicit_only": True, "reason": "for-await uses next() below iOS 18 on Apple"},
    # Swift 6 made `&*` a FixedWidthInteger requirement (iOS 18 in the symbol graph); an Apple build
    # below iOS 18 resolves `a &* b` to the older extension operator that every version has.
    "FixedWidthInteger.&*(_:_:)": {"implicit_only": False,
                                   "reason": "resolves to the pre-Swift 6 operator below iOS 18 on Apple"},
}


def allowed(path, implicit):
    """The allow-list entry (key, entry) that covers a use of `path`, if any."""
    for key, entry in ALLOWED.items():
        if (path == key or path.endswith("." + key)) and (implicit or not entry["implicit_only"]):
            return key, entry
    return None, None


# The modules whose symbol graphs come from swift-corelibs sources: their missing availability
# means "not declared here", not "available everywhere". Uses of their symbols are looked up in
# HAND_TABLE, and the gate says how many it could and could not check.
CORELIBS_MODULES = ("FoundationNetworking", "Foundation", "Dispatch", "FoundationXML")
