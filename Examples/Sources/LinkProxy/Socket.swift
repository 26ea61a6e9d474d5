import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few blocking socket calls the proxy needs, on 127.0.0.1 only.
enum Socket {
    /// A failed socket call, with `errno`'s text.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ call: String) {
            description = "\(call): \(String(cString: strerror(errno)))"
        }
    }

    #if os(Linux)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif

    /// A listening socket on 127.0.0.1:`port` (0: any free port).
    static func listening(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure("socket") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            close(descriptor)
            throw Failure("bind/listen")
        }
        return descriptor
    }

    /// The port a socket is bound to.
    static func localPort(_ descriptor: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw Failure("getsockname") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// The next connection on a listening socket, with Nagle off.
    static func nextConnection(_ listener: Int32) throws -> Int32 {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor >= 0 {
                noDelay(descriptor)
                return descriptor
            }
            guard errno == EINTR || errno == ECONNABORTED else { throw Failure("accept") }
        }
    }

    /// A connection to 127.0.0.1:`port`, with Nagle off.
    static func connection(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure("socket") }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure("connect to 127.0.0.1:\(port)")
        }
        noDelay(descriptor)
        return descriptor
    }

    /// Nagle off: the proxy writes each chunk when its time comes, and small requests must not wait.
    private static func noDelay(_ descriptor: Int32) {
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
