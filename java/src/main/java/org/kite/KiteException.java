package org.kite;

/**
 * A kite call failed: loading a param or model, setting an input, running the
 * network. The message says what failed and carries kite's own error text
 * (the library's last error on that thread), e.g.
 * {@code loadParam 'x.param': param: cannot open 'x.param'}.
 */
public class KiteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KiteException(String message) {
        super(message);
    }
}
