package mcpconn

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// setUp asks for what the spec wants once the server is initialized: the
// log level of a server that offers logging, and the resource
// subscriptions of a server that offers them. A server that refuses either
// is logged and stays connected: neither is needed to use its tools.
func (c *Conn) setUp(ctx context.Context) {
	caps := c.init.Capabilities
	if c.spec.LogLevel != "" && caps.Logging != nil {
		if err := c.SetLogLevel(ctx, c.spec.LogLevel); err != nil {
			c.log.Warn("mcp server refused the log level", "level", c.spec.LogLevel, "err", err)
		}
	}
	for _, uri := range c.spec.Subscriptions {
		if err := c.subscribe(ctx, uri, false); err != nil {
			c.log.Warn("mcp server refused a resource subscription", "uri", uri, "err", err)
		}
	}
}

// SetLogLevel asks the server for the log messages of level and above:
// logging/setLevel, or on 2026-07-28 the level every later request
// carries.
func (c *Conn) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	req := mcp.SetLevelRequest{}
	req.Params.Level = level
	if IsModern(c.ProtocolVersion()) {
		//lint:ignore SA1019 servers before 2026-07-28 take logging/setLevel; on 2026-07-28 mcp-go sends the level with each request.
		return c.client.SetLevel(ctx, req) // recorded, nothing sent
	}
	_, err := c.request(ctx, string(mcp.MethodSetLogLevel), noTarget, ownCtx{}, func(rctx context.Context) error {
		//lint:ignore SA1019 servers before 2026-07-28 take logging/setLevel; on 2026-07-28 mcp-go sends the level with each request.
		return c.client.SetLevel(rctx, req)
	})
	return err
}

// OffersSubscriptions reports whether the server declared resource
// subscriptions.
func (c *Conn) OffersSubscriptions() bool {
	r := c.init.Capabilities.Resources
	return r != nil && r.Subscribe
}

// SubscribeResource asks the server for notifications/resources/updated of
// uri (see Spec.OnResourceUpdated): resources/subscribe, or on 2026-07-28
// a subscriptions/listen stream opened again with uri in its filter.
func (c *Conn) SubscribeResource(ctx context.Context, uri string) error {
	return c.subscribe(ctx, uri, true)
}

// UnsubscribeResource ends a subscription made by SubscribeResource:
// resources/unsubscribe, or on 2026-07-28 the listen stream opened again
// without uri.
func (c *Conn) UnsubscribeResource(ctx context.Context, uri string) error {
	req := mcp.UnsubscribeRequest{}
	req.Params.URI = uri
	if IsModern(c.ProtocolVersion()) {
		//lint:ignore SA1019 resources/subscribe before 2026-07-28; on 2026-07-28 it edits the filter of the next Listen, which relisten opens.
		if err := c.client.Unsubscribe(ctx, req); err != nil {
			return c.wrap(string(mcp.MethodResourcesUnsubscribe), err)
		}
		c.relisten()
		return nil
	}
	_, err := c.request(ctx, string(mcp.MethodResourcesUnsubscribe), noTarget, ownCtx{}, func(rctx context.Context) error {
		//lint:ignore SA1019 resources/subscribe before 2026-07-28; on 2026-07-28 it edits the filter of the next Listen, which relisten opens.
		return c.client.Unsubscribe(rctx, req)
	})
	return err
}

// subscribe is SubscribeResource; relisten says whether a 2026-07-28
// stream already open must be opened again (not while connecting: the
// first stream opens after setUp).
func (c *Conn) subscribe(ctx context.Context, uri string, relisten bool) error {
	req := mcp.SubscribeRequest{}
	req.Params.URI = uri
	if IsModern(c.ProtocolVersion()) {
		//lint:ignore SA1019 resources/subscribe before 2026-07-28; on 2026-07-28 it edits the filter of the next Listen, which relisten opens.
		if err := c.client.Subscribe(ctx, req); err != nil {
			return c.wrap(string(mcp.MethodResourcesSubscribe), err)
		}
		if relisten {
			c.relisten()
		}
		return nil
	}
	_, err := c.request(ctx, string(mcp.MethodResourcesSubscribe), noTarget, ownCtx{}, func(rctx context.Context) error {
		//lint:ignore SA1019 resources/subscribe before 2026-07-28; on 2026-07-28 it edits the filter of the next Listen, which relisten opens.
		return c.client.Subscribe(rctx, req)
	})
	return err
}

// relisten opens the subscriptions/listen stream again, with the filter as
// it now is (or closes it when nothing is left to listen for).
//
// Over stdio the server often sees the new listen request before the old
// one ends: mcp-go's client sends the old one's notifications/cancelled
// from a goroutine of its own (cancelRequest in client/client.go), so the
// two streams overlap for a moment. A server must therefore tie a
// subscription to its listen request (the subscription id), not to the
// connection; the test server once keyed them by session, and the old
// stream's end then dropped the new one's resources.
func (c *Conn) relisten() {
	c.endListen()
	c.startListen()
}

// subscribedResources returns the resource URIs of the next
// subscriptions/listen filter.
func (c *Conn) subscribedResources() []string {
	return slices.Clone(c.client.PendingSubscriptionFilter().ResourceSubscriptions)
}
