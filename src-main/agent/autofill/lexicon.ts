// The documented lexicon the builtin filler uses to say two texts mean the same thing
// (docs/autofill.md lists it). Two kinds of entries:
// - value synonyms: a form_data value and an option that name one thing in different words
//   ("CA" and "California", "GB" and "United Kingdom", true and "Yes", 3 and "March");
// - field words: words of keys, schema titles and labels that name one concept ("kilograms" and
//   "kg", "£" and "GBP", "surname" and "last name"), used when matching keys to controls.
// Nothing here is fuzzy: a text either is one of an entry's spellings (after normalisation) or not.

/** Lowercase, compatibility-normalised, every run of non-letters/non-digits one space (any script). */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const SPECIAL_LETTERS: Record<string, string> = {
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
};

/** `normaliseText` with accents and special Latin letters folded ("Zone Über" → "zone uber", "Ø" → "o"). */
export function foldAccents(text: string): string {
  return normaliseText(text.normalize('NFKD').replace(/\p{M}/gu, '')).replace(
    /[øæœßłđðþıħ]/g,
    (c) => SPECIAL_LETTERS[c] ?? c,
  );
}

const US_STATES: Array<[string, string]> = [
  ['AL', 'Alabama'],
  ['AK', 'Alaska'],
  ['AZ', 'Arizona'],
  ['AR', 'Arkansas'],
  ['CA', 'California'],
  ['CO', 'Colorado'],
  ['CT', 'Connecticut'],
  ['DE', 'Delaware'],
  ['DC', 'District of Columbia'],
  ['FL', 'Florida'],
  ['GA', 'Georgia'],
  ['HI', 'Hawaii'],
  ['ID', 'Idaho'],
  ['IL', 'Illinois'],
  ['IN', 'Indiana'],
  ['IA', 'Iowa'],
  ['KS', 'Kansas'],
  ['KY', 'Kentucky'],
  ['LA', 'Louisiana'],
  ['ME', 'Maine'],
  ['MD', 'Maryland'],
  ['MA', 'Massachusetts'],
  ['MI', 'Michigan'],
  ['MN', 'Minnesota'],
  ['MS', 'Mississippi'],
  ['MO', 'Missouri'],
  ['MT', 'Montana'],
  ['NE', 'Nebraska'],
  ['NV', 'Nevada'],
  ['NH', 'New Hampshire'],
  ['NJ', 'New Jersey'],
  ['NM', 'New Mexico'],
  ['NY', 'New York'],
  ['NC', 'North Carolina'],
  ['ND', 'North Dakota'],
  ['OH', 'Ohio'],
  ['OK', 'Oklahoma'],
  ['OR', 'Oregon'],
  ['PA', 'Pennsylvania'],
  ['RI', 'Rhode Island'],
  ['SC', 'South Carolina'],
  ['SD', 'South Dakota'],
  ['TN', 'Tennessee'],
  ['TX', 'Texas'],
  ['UT', 'Utah'],
  ['VT', 'Vermont'],
  ['VA', 'Virginia'],
  ['WA', 'Washington'],
  ['WV', 'West Virginia'],
  ['WI', 'Wisconsin'],
  ['WY', 'Wyoming'],
  ['AS', 'American Samoa'],
  ['GU', 'Guam'],
  ['MP', 'Northern Mariana Islands'],
  ['PR', 'Puerto Rico'],
  ['VI', 'U.S. Virgin Islands'],
  ['UM', 'U.S. Minor Outlying Islands'],
  ['AA', 'Armed Forces Americas'],
  ['AE', 'Armed Forces Europe'],
  ['AP', 'Armed Forces Pacific'],
];

/** Other names people give countries, beyond the ISO code and the English short name. */
const COUNTRY_ALIASES: Record<string, string[]> = {
  GB: ['UK', 'Great Britain', 'Britain', 'United Kingdom of Great Britain and Northern Ireland', 'GBR'],
  US: ['USA', 'United States of America', 'America', 'U.S.', 'U.S.A.'],
  NL: ['Holland', 'The Netherlands', 'NLD'],
  DE: ['DEU'],
  FR: ['FRA'],
  IE: ['IRL', 'Republic of Ireland'],
  ES: ['ESP'],
  IT: ['ITA'],
  CA: ['CAN'],
  AU: ['AUS'],
  NZ: ['NZL'],
  IN: ['IND'],
  CN: ['CHN', "People's Republic of China"],
  JP: ['JPN'],
  KR: ['South Korea', 'Republic of Korea', 'KOR'],
  RU: ['Russian Federation', 'RUS'],
  CZ: ['Czech Republic', 'CZE'],
  CI: ["Cote d'Ivoire", 'Ivory Coast'],
  MX: ['MEX'],
  BR: ['BRA'],
  CH: ['CHE'],
  SE: ['SWE'],
  NO: ['NOR'],
  DK: ['DNK'],
  PL: ['POL'],
  PT: ['PRT'],
  BE: ['BEL'],
  AT: ['AUT'],
  FI: ['FIN'],
  GR: ['GRC'],
  TR: ['Turkey', 'Türkiye', 'TUR'],
  ZA: ['ZAF'],
};

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Each group lists spellings of one value; the first is its canonical id. */
function buildValueGroups(): string[][] {
  const groups: string[][] = [
    ['bool:yes', 'yes', 'true', 'y'],
    ['bool:no', 'no', 'false', 'n'],
    ['gender:male', 'male', 'm', 'man'],
    ['gender:female', 'female', 'f', 'woman'],
    ['time:am', 'am', 'a m', 'morning'],
    ['time:pm', 'pm', 'p m', 'afternoon'],
    ['channel:sms', 'sms', 'text message', 'text messages', 'text', 'texts'],
  ];
  MONTH_NAMES.forEach((name, i) => {
    const n = i + 1;
    groups.push([
      `month:${n}`,
      name,
      name.slice(0, 3),
      ...(name === 'september' ? ['sept'] : []),
      String(n),
      String(n).padStart(2, '0'),
    ]);
  });
  for (const [code, name] of US_STATES) groups.push([`state:${code}`, code, name]);
  const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  for (let a = 65; a <= 90; a += 1) {
    for (let b = 65; b <= 90; b += 1) {
      const code = String.fromCharCode(a, b);
      const name = regionNames.of(code);
      if (name) groups.push([`country:${code}`, code, name, ...(COUNTRY_ALIASES[code] ?? [])]);
    }
  }
  return groups;
}

let valueIndex: Map<string, Set<string>> | undefined;

/** The canonical ids a value or option text may stand for ("CA" → state:CA and country:CA). */
export function valueSynonyms(text: string): Set<string> {
  if (!valueIndex) {
    valueIndex = new Map();
    for (const [id, ...spellings] of buildValueGroups()) {
      for (const spelling of spellings) {
        const key = foldAccents(spelling);
        const set = valueIndex.get(key) ?? new Set<string>();
        set.add(id as string);
        valueIndex.set(key, set);
      }
    }
  }
  return valueIndex.get(foldAccents(text)) ?? new Set();
}

/**
 * Field words: phrases that name one concept in keys, titles, labels, hints, prefixes and suffixes.
 * Longest phrases win ("address line 1" before "address").
 */
export const FIELD_CONCEPTS: Array<[string, string[]]> = [
  [
    'givenname',
    [
      'first name',
      'first names',
      'given name',
      'given names',
      'forename',
      'forenames',
      'fname',
      'firstname',
      'givenname',
      'christian name',
    ],
  ],
  ['familyname', ['last name', 'surname', 'family name', 'lname', 'lastname', 'familyname', 'second name']],
  ['middlename', ['middle name', 'middle names', 'middlename']],
  ['fullname', ['full name', 'fullname', 'your name', 'name in full']],
  ['birthdate', ['date of birth', 'birth date', 'birthdate', 'dob', 'birthday', 'born on']],
  [
    'postcode',
    ['zip code', 'zip', 'zipcode', 'postcode', 'postal code', 'post code', 'postalcode', 'pin code', 'eircode'],
  ],
  [
    'phone',
    [
      'telephone number',
      'phone number',
      'mobile number',
      'mobile phone',
      'cell phone',
      'contact number',
      'telephone',
      'phone',
      'mobile',
      'tel',
      'cell',
      'phonenumber',
    ],
  ],
  ['email', ['email address', 'e mail address', 'e mail', 'email', 'mail address', 'emailaddress']],
  [
    'addressline1',
    [
      'address line 1',
      'street address',
      'address 1',
      'addressline1',
      'address1',
      'street',
      'line 1',
      'building and street',
    ],
  ],
  [
    'addressline2',
    ['address line 2', 'address 2', 'addressline2', 'address2', 'line 2', 'apartment', 'suite', 'apt', 'flat number'],
  ],
  ['city', ['town or city', 'city or town', 'town', 'city', 'locality']],
  ['region', ['state or province', 'county', 'province', 'state', 'region']],
  ['country', ['country of residence', 'country']],
  ['organisation', ['organisation', 'organization', 'company name', 'company', 'employer', 'business name']],
  ['agree', ['i agree', 'agree', 'accept', 'accepted', 'consent', 'terms and conditions', 'terms']],
  ['message', ['message', 'comments', 'comment', 'enquiry', 'inquiry', 'more details', 'further information']],
  ['passport', ['passport number', 'passport no', 'passport']],
  ['nino', ['national insurance number', 'ni number', 'nino']],
  ['ssn', ['social security number', 'ssn', 'social security no']],
  ['nationality', ['nationality', 'nationalities', 'citizenship', 'citizenships']],
  ['marriage', ['marriage', 'married', 'wedding', 'marry']],
  ['gift', ['gift', 'gifts', 'present', 'presents', 'gifted']],
  ['departure', ['departure', 'departing', 'depart', 'leaving', 'leave', 'outbound']],
  ['return', ['coming back', 'come back', 'returning', 'return', 'inbound']],
  ['arrival', ['arrival', 'arriving', 'arrive', 'arrived', 'entry', 'entering', 'entered']],
  [
    'vrm',
    [
      'vehicle registration number',
      'vehicle registration mark',
      'registration number',
      'registration mark',
      'reg number',
      'number plate',
      'vrm',
    ],
  ],
  ['make', ['manufacturer', 'make', 'brand']],
  ['vape', ['e cigarettes', 'e cigarette', 'vapes', 'vaping', 'vape']],
  ['item', ['goods', 'items', 'item', 'products', 'product']],
  ['problem', ['problem', 'issue', 'fault']],
  ['information', ['information', 'info', 'details']],
  [
    'document',
    [
      'supporting documents',
      'supporting document',
      'documents',
      'document',
      'attachments',
      'attachment',
      'attached file',
      'upload',
    ],
  ],
  ['correct', ['correct', 'accurate', 'true']],
  ['maximum', ['maximum', 'max', 'ceiling', 'limit', 'up to']],
  ['uk', ['united kingdom', 'uk', 'great britain', 'britain']],
  ['usa', ['united states of america', 'united states', 'usa']],
  ['gender', ['gender', 'sex']],
  ['quantity', ['quantity', 'qty', 'number of items']],
  ['website', ['website', 'web site', 'homepage', 'url']],
  ['password', ['password', 'passcode', 'pass word']],
  ['username', ['user name', 'username', 'login', 'user id']],
  // Units and currencies: the word, its plural and its code are one token (words() spells £ $ € as codes).
  ['kg', ['kilograms', 'kilogram', 'kilos', 'kilo', 'kgs', 'kg']],
  ['gram', ['grams', 'gram']],
  ['lb', ['pounds weight', 'lbs', 'lb']],
  ['cm', ['centimetres', 'centimeters', 'centimetre', 'centimeter', 'cm']],
  ['metre', ['metres', 'meters', 'metre', 'meter']],
  ['km', ['kilometres', 'kilometers', 'kilometre', 'kilometer', 'km']],
  ['mile', ['miles', 'mile']],
  ['litre', ['litres', 'liters', 'litre', 'liter']],
  ['percent', ['per cent', 'percent', 'percentage', 'pct']],
  ['gbp', ['pounds sterling', 'pound sterling', 'sterling', 'gbp', 'pounds', 'pound']],
  ['usd', ['us dollars', 'dollars', 'dollar', 'usd']],
  ['eur', ['euros', 'euro', 'eur']],
  ['hour', ['per hour', 'an hour', 'hourly', 'hours', 'hour', 'hrs', 'hr']],
  ['amount', ['amount', 'cost', 'price', 'value', 'sum', 'fee', 'total']],
];
