/// Stand-ins for the UIKit parts the hooks drive — views, a scroll view, a button, a refresh
/// control, a table cell, masks, an alert, a progress bar — so that the whole library, UI-state
/// logic included, runs and is tested without a screen (on Linux, in a CLI, in unit tests).
///
/// They hold state only. Each calls its `onChange` callback when that state changes (a view's
/// callback also fires for changes anywhere below it), so a renderer can draw them: the terminal
/// demo, a test, or a thin UIKit adapter in an app.
public enum Headless {}
