/** Opening Stripe's billing portal, shared by the billing page and the Edit Profile card. */

import { BILLING_MESSAGES } from "../lib/account-messages";
import { api, errorMessage } from "../lib/api";
import { notify } from "../lib/toast";
import type { PortalSessionAnswer } from "../lib/types";

/** Asks the server for a portal session and goes there; on failure an error toast. Resolves false on failure. */
export async function openBillingPortal(): Promise<boolean> {
  try {
    const { url } = await api.post<PortalSessionAnswer>("/api/create-portal-session");
    window.location.assign(url);
    return true;
  } catch (error) {
    notify.error(errorMessage(error, BILLING_MESSAGES.portalFailed));
    return false;
  }
}
