/*
 * A stand-in for Stripe.js (https://js.stripe.com/<release>/stripe.js) in Playwright:
 * tests route js.stripe.com to this file. It implements what the subscribe page uses:
 * Stripe(key), stripe.elements({clientSecret}), elements.create("payment"), mount, on("ready"),
 * destroy, and stripe.confirmPayment({elements, confirmParams, redirect: "if_required"}).
 *
 * The "Payment Element" is a plain card form in the page (no iframe). confirmPayment
 * POSTs the client secret and the card number to https://api.stripe.com/_fake/confirm_payment,
 * which the test routes to the fake Stripe server: that marks the invoice paid and the
 * subscription active, or declines card 4000 0000 0000 0002 with Stripe's error.
 * Calls are recorded on window.__stripeStub for assertions.
 */
(() => {
  const calls = { init: [], elements: [], confirmPayment: [] };
  window.__stripeStub = calls;

  function createPaymentElement(options) {
    const handlers = {};
    let root = null;
    const emit = (event, payload) => {
      for (const handler of handlers[event] || []) handler(payload || { elementType: "payment" });
    };
    return {
      options,
      on(event, handler) {
        handlers[event] = handlers[event] || [];
        handlers[event].push(handler);
        return this;
      },
      off(event, handler) {
        handlers[event] = (handlers[event] || []).filter((h) => h !== handler);
        return this;
      },
      mount(target) {
        const host = typeof target === "string" ? document.querySelector(target) : target;
        if (!host) throw new Error("stub Stripe.js: mount target not found");
        root = document.createElement("div");
        root.setAttribute("data-testid", "stub-payment-element");
        root.innerHTML = `
          <fieldset style="border:1px solid #cbd5e1;border-radius:8px;padding:12px;margin:0;display:grid;gap:10px">
            <legend style="padding:0 4px;font-size:14px">Card (test stub of Stripe's Payment Element)</legend>
            <label style="display:grid;gap:4px;font-size:14px">Card number
              <input name="cardnumber" inputmode="numeric" autocomplete="cc-number" value="4242 4242 4242 4242"
                style="border:1px solid #cbd5e1;border-radius:6px;padding:8px;font-size:16px;min-width:0" />
            </label>
            <div style="display:grid;grid-template-columns:1fr 1fr;gap:10px">
              <label style="display:grid;gap:4px;font-size:14px">Expiration
                <input name="exp-date" autocomplete="cc-exp" value="12 / 34"
                  style="border:1px solid #cbd5e1;border-radius:6px;padding:8px;font-size:16px;min-width:0" />
              </label>
              <label style="display:grid;gap:4px;font-size:14px">CVC
                <input name="cvc" autocomplete="cc-csc" value="123"
                  style="border:1px solid #cbd5e1;border-radius:6px;padding:8px;font-size:16px;min-width:0" />
              </label>
            </div>
          </fieldset>`;
        host.appendChild(root);
        root.addEventListener("input", () => emit("change", { elementType: "payment", complete: true, empty: false }));
        setTimeout(() => emit("ready"), 30);
        return this;
      },
      unmount() {
        root?.remove();
        root = null;
      },
      destroy() {
        this.unmount();
      },
      update() {},
      focus() {
        root?.querySelector("input")?.focus();
      },
      blur() {},
      clear() {},
      collapse() {},
      cardNumber() {
        return root?.querySelector('input[name="cardnumber"]')?.value || "";
      },
    };
  }

  function Stripe(publishableKey, options) {
    if (typeof publishableKey !== "string" || !publishableKey.startsWith("pk_")) {
      throw new Error("stub Stripe.js: a publishable key (pk_…) is required");
    }
    calls.init.push({ publishableKey, options });
    return {
      _registerWrapper() {},
      elements(elementsOptions) {
        calls.elements.push(elementsOptions);
        const created = [];
        return {
          clientSecret: elementsOptions?.clientSecret,
          create(type, createOptions) {
            if (type !== "payment") throw new Error(`stub Stripe.js: element ${type} is not stubbed`);
            const element = createPaymentElement(createOptions);
            created.push(element);
            return element;
          },
          getElement(type) {
            return type === "payment" ? created[created.length - 1] || null : null;
          },
          update() {},
          async submit() {
            return {};
          },
          _created: created,
        };
      },
      async confirmPayment({ elements, clientSecret, confirmParams, redirect }) {
        const secret = clientSecret || elements?.clientSecret;
        const element = elements?._created[elements._created.length - 1];
        calls.confirmPayment.push({ clientSecret: secret, confirmParams, redirect });
        // Like Stripe.js, the confirmation carries return_url (the fake ignores it; tests read it).
        const body = new URLSearchParams({
          client_secret: secret || "",
          card_number: element ? element.cardNumber() : "",
          return_url: confirmParams?.return_url || "",
        });
        let response;
        try {
          response = await fetch("https://api.stripe.com/_fake/confirm_payment", { method: "POST", body });
        } catch {
          return { error: { type: "api_connection_error", message: "We could not reach Stripe. Please try again." } };
        }
        const data = await response.json();
        if (!response.ok) return { error: data.error };
        const paymentIntent = { id: data.id, object: "payment_intent", status: data.status, client_secret: secret };
        if (redirect !== "if_required") {
          const url = new URL(confirmParams.return_url);
          url.searchParams.set("payment_intent", data.id);
          url.searchParams.set("payment_intent_client_secret", secret);
          url.searchParams.set("redirect_status", "succeeded");
          window.location.assign(url.toString());
          return new Promise(() => {});
        }
        return { paymentIntent };
      },
    };
  }
  // @stripe/stripe-js compares this with its release train and warns on a mismatch.
  Stripe.version = "endive";
  window.Stripe = Stripe;
})();
