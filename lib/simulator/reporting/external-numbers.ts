import type { CountryCode } from 'libphonenumber-js';
import { strangerPhone } from '../directories/phone-plans';
import { switchForms } from '../directories/switch-forms';
import { labelSeed, mixSeed, Prng } from '../prng';

/** Share of external calls made by or to a contact of the tenant's directories. */
export const CONTACT_CALL_SHARE = 0.55;

/** The phone numbers (E.164) of each item of the tenant's directories on a local day. */
export type ContactPhones = (day: number) => readonly (readonly string[])[];

const STREAM = labelSeed('external-number');

/** Days of contacts kept (a report window). */
const CACHED_DAYS = 16;
/** Forms kept per number (the contacts' numbers are a few hundred). */
const CACHED_FORMS = 8192;

interface DayContacts {
  /** Items with at least one phone. */
  phones: readonly (readonly string[])[];
  /** Every phone of the day, to keep a stranger's number out of them. */
  known: ReadonlySet<string>;
}

/**
 * The external number of an inbound or outbound external call, written in `cli` as the
 * tenant's switch records it. For {@link CONTACT_CALL_SHARE} of the calls it is a number of
 * an item of the directories that day (an item, then one of its phones), in one of its
 * switch forms (E.164, national with the trunk prefix, dialled digits, or international
 * from the tenant's country: see switchForms); otherwise the caller's number of the call
 * population, unless a contact has it that day (then a number no contact has). Drawn from a
 * sequence of its own per call (seed, day, index), so every other member of the row is what
 * it was before the numbers came from the directories.
 */
export class ExternalNumbers {
  readonly #seed: number;
  readonly #country: CountryCode;
  readonly #contacts: ContactPhones;
  readonly #rng = new Prng(0);
  readonly #days = new Map<number, DayContacts>();
  readonly #forms = new Map<string, readonly string[]>();

  constructor(seed: number, country: CountryCode, contacts: ContactPhones) {
    this.#seed = seed;
    this.#country = country;
    this.#contacts = contacts;
  }

  /** The `cli` of call `index` of `day`, whose population number is `populationNumber`. */
  numberFor(day: number, index: number, populationNumber: string): string {
    const rng = this.#rng;
    rng.reseed(mixSeed(this.#seed, STREAM, day, index));
    const contacts = this.#dayContacts(day);
    const fromContact = rng.next() < CONTACT_CALL_SHARE;
    if (fromContact && contacts.phones.length > 0) {
      const phones = rng.pick(contacts.phones);
      // The main number mostly; a second (or third) number for some calls.
      const phone = (
        phones.length > 1 && rng.next() < 0.3 ? (phones[1 + rng.int(phones.length - 1)] as string) : phones[0]
      ) as string;
      return rng.pick(this.#formsOf(phone));
    }
    if (!contacts.known.has(populationNumber)) return populationNumber;
    for (let attempt = 0; attempt < 8; attempt++) {
      const stranger = strangerPhone(this.#country, rng);
      if (!contacts.known.has(stranger)) return stranger;
    }
    return populationNumber;
  }

  #dayContacts(day: number): DayContacts {
    let contacts = this.#days.get(day);
    if (contacts === undefined) {
      const phones = this.#contacts(day).filter((p) => p.length > 0);
      contacts = { phones, known: new Set(phones.flat()) };
      if (this.#days.size >= CACHED_DAYS) this.#days.delete(this.#days.keys().next().value as number);
      this.#days.set(day, contacts);
    }
    return contacts;
  }

  #formsOf(phone: string): readonly string[] {
    let forms = this.#forms.get(phone);
    if (forms === undefined) {
      forms = switchForms(phone, this.#country);
      if (this.#forms.size >= CACHED_FORMS) this.#forms.clear();
      this.#forms.set(phone, forms);
    }
    return forms;
  }
}
