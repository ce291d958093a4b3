import { h, render, type ComponentType } from 'preact';
import { apiOf, EmbedError, isPublishableKey, isSecretKey, scriptOrigin, type Api } from './api.ts';
import { localeOf, type Locale } from './i18n.ts';
import { baseSheet, themeSheet } from './styles.ts';

/** What every element's view gets: the API (null when the key is refused), the words, and how to emit the contract's events. */
export interface ElementProps {
  host: HTMLElement;
  api: Api | null;
  /** Why there is no API: a secret key, a missing key. */
  keyError: EmbedError | null;
  sandbox: boolean;
  locale: Locale;
  vehicleId: string | null;
  emit(name: 'rental:quote' | 'rental:booking' | 'rental:paid' | 'rental:error', detail: Record<string, unknown>): void;
}

/**
 * A custom element rendering a Preact view into its shadow root, styled by constructable
 * stylesheets (the business's branding, then the page's --rental-* properties). Attributes:
 * publishable-key (required), api-base (default: the script's own origin), vehicle-id, locale.
 * A secret key in publishable-key is never sent: the element shows why and emits
 * rental:error with code secret_key_in_browser.
 */
export function defineElement(name: string, View: ComponentType<ElementProps>): void {
  if (customElements.get(name)) return;
  class RentalElement extends HTMLElement {
    static observedAttributes = ['publishable-key', 'api-base', 'vehicle-id', 'locale'];
    #reported = '';
    #themed = '';

    connectedCallback() {
      if (!this.shadowRoot) {
        const root = this.attachShadow({ mode: 'open' });
        root.adoptedStyleSheets = [baseSheet()];
      }
      this.#update();
    }

    attributeChangedCallback() {
      if (this.isConnected && this.shadowRoot) this.#update();
    }

    disconnectedCallback() {
      if (this.shadowRoot) render(null, this.shadowRoot);
    }

    #emit = (event: string, detail: Record<string, unknown>) => {
      this.dispatchEvent(new CustomEvent(event, { detail, bubbles: true, composed: true }));
    };

    #update() {
      const locale = localeOf(this);
      const key = (this.getAttribute('publishable-key') ?? '').trim();
      const base = (this.getAttribute('api-base') || scriptOrigin).replace(/\/$/, '');
      let keyError: EmbedError | null = null;
      if (isSecretKey(key)) keyError = new EmbedError('secret_key_in_browser', locale.t.errors.secretKey);
      else if (!isPublishableKey(key)) keyError = new EmbedError('publishable_key_missing', locale.t.errors.missingKey);
      if (keyError && this.#reported !== `${keyError.code}:${key.length}`) {
        this.#reported = `${keyError.code}:${key.length}`;
        queueMicrotask(() => this.#emit('rental:error', { code: keyError!.code, message: keyError!.message }));
      }
      const api = keyError ? null : apiOf(base, key, { unreachable: locale.t.errors.unreachable, refusedOrigin: locale.t.errors.refusedOrigin });
      if (api && this.#themed !== `${base} ${key}`) {
        this.#themed = `${base} ${key}`;
        void api.theme().then((theme) => {
          if (this.shadowRoot) this.shadowRoot.adoptedStyleSheets = [baseSheet(), themeSheet(theme)];
        });
      }
      const props: ElementProps = { host: this, api, keyError, sandbox: key.startsWith('svc_test_'), locale, vehicleId: this.getAttribute('vehicle-id'), emit: this.#emit };
      render(h(View, { ...props, key: `${base} ${key} ${locale.tag} ${props.vehicleId ?? ''}` }), this.shadowRoot!);
    }
  }
  customElements.define(name, RentalElement);
}

/** An error as the elements show it: in words, announced. */
export const asEmbedError = (err: unknown): EmbedError => (err instanceof EmbedError ? err : new EmbedError('unexpected', err instanceof Error ? err.message : String(err)));
