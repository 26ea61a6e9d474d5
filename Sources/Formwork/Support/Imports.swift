// The one place that deals with corelibs Foundation's split: on Linux, URLSession and
// URLRequest live in FoundationNetworking. Re-exporting it means neither the rest of the
// module nor an app that imports Formwork has to repeat the `#if`.
@_exported import Foundation

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
