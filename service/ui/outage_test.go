package ui_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/store"
)

// TestOutageBannerInChromium: while the API answers 503 (its store
// unavailable) the dashboard shows the outage banner and hides the page's
// numbers; when the store is back the page comes back by itself, without
// a reload.
func TestOutageBannerInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on this machine (apt-get install chromium, or set CBANDIT_CHROMIUM): the outage banner's browser test is skipped")
	}
	mem := store.NewMemory()
	srv := service.New(mem, service.Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// until polls the page until js is "true" (the page refreshes on its
	// own: polled, not timed).
	until := func(what, js string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
			if err != nil {
				t.Fatalf("chromium: %s: %v", what, err)
			}
			if v == "true" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen", what)
			}
		}
	}
	const listed = `String(!!document.querySelector("h1") && document.querySelector("h1").textContent === "Studies" && !document.getElementById("main").hidden && document.getElementById("outage").hidden)`
	const banner = `String(!document.getElementById("outage").hidden && document.getElementById("main").hidden)`
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/ui/")); err != nil {
		t.Fatal(err)
	}
	until("the study list", listed)
	mem.SetFault(errors.New("connection refused")) // the page's own refresh meets it
	until("the outage banner instead of the list", banner)
	mem.SetFault(nil)
	until("the study list after the outage, without a reload", listed)
}
