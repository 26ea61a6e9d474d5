import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// URLSession APIs come from corelibs FoundationNetworking on Linux, whose symbol graph has no
// Apple versions: the gate looks these up in its hand table (both are at the floor: no finding).
func socket(_ session: URLSession, url: URL) -> URLSessionWebSocketTask {
    session.webSocketTask(with: url)
}

func taskDelegate(_ task: URLSessionTask) -> (any URLSessionTaskDelegate)? {
    task.delegate
}
