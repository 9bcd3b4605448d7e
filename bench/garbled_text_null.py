"""The garbled-text threshold from chance (issue 31): the word share (ingest/extract/
wordshare.py) of 200 garbage texts — letter salad, random printable characters, accented
Latin-1 noise, this repository's English docs with a shifted alphabet (a broken font map) —
against short business paragraphs in seven Latin-script languages (written for this, before
any threshold was chosen). The threshold is the garbage's 99th percentile rounded up to two
decimals; the prose shows how far above it each language sits (see the module).

    python -m bench.garbled_text_null
"""

from __future__ import annotations

import glob
import random
import statistics
import string

from ingest.extract.wordshare import GARBLED_SHARE, word_share

PROSE = {
    "en": "The board met on the fifth of March to review the annual accounts. Operating "
          "expenses rose by twelve per cent, mainly because of staff costs and rents. The "
          "treasurer presented a plan to cut costs, to be voted on at the next general "
          "meeting. Members also discussed renewing the maintenance contract with Dupont Ltd "
          "and the paid leave policy for employees, which the works council had questioned.",
    "fr": "Le conseil d'administration s'est réuni le cinq mars pour examiner les comptes de "
          "l'exercice. Les dépenses de fonctionnement ont augmenté de douze pour cent, "
          "principalement en raison des frais de personnel et des loyers. Le trésorier a "
          "présenté un plan de réduction des coûts, qui sera soumis au vote lors de la "
          "prochaine assemblée générale. Les membres ont également discuté du renouvellement "
          "du contrat de maintenance avec la société Dupont.",
    "de": "Der Vorstand hat am fünften März getagt, um den Jahresabschluss zu prüfen. Die "
          "Betriebsausgaben sind um zwölf Prozent gestiegen, vor allem wegen der "
          "Personalkosten und der Mieten. Der Schatzmeister stellte einen Plan zur "
          "Kostensenkung vor, über den auf der nächsten Hauptversammlung abgestimmt wird. Die "
          "Mitglieder besprachen außerdem die Verlängerung des Wartungsvertrags mit der Firma "
          "Müller und die Urlaubsregelung der Beschäftigten.",
    "es": "La junta directiva se reunió el cinco de marzo para examinar las cuentas del "
          "ejercicio. Los gastos de funcionamiento aumentaron un doce por ciento, "
          "principalmente debido a los costes de personal y los alquileres. El tesorero "
          "presentó un plan de reducción de costes, que se someterá a votación en la próxima "
          "asamblea general. Los miembros también hablaron de la renovación del contrato de "
          "mantenimiento con la empresa García.",
    "it": "Il consiglio di amministrazione si è riunito il cinque marzo per esaminare i conti "
          "dell'esercizio. Le spese di funzionamento sono aumentate del dodici per cento, "
          "soprattutto a causa dei costi del personale e degli affitti. Il tesoriere ha "
          "presentato un piano di riduzione dei costi, che sarà votato nella prossima "
          "assemblea generale. I membri hanno anche discusso il rinnovo del contratto di "
          "manutenzione con la società Rossi.",
    "nl": "Het bestuur kwam op vijf maart bijeen om de jaarrekening te bespreken. De "
          "bedrijfskosten zijn met twaalf procent gestegen, vooral door personeelskosten en "
          "huren. De penningmeester presenteerde een plan om de kosten te verlagen, waarover "
          "op de volgende algemene vergadering zal worden gestemd. De leden bespraken ook de "
          "verlenging van het onderhoudscontract met het bedrijf Jansen.",
    "pl": "Zarząd zebrał się piątego marca, aby przeanalizować sprawozdanie finansowe. Koszty "
          "operacyjne wzrosły o dwanaście procent, głównie z powodu kosztów personelu i "
          "czynszów. Skarbnik przedstawił plan obniżenia kosztów, nad którym głosowanie "
          "odbędzie się na następnym walnym zgromadzeniu. Członkowie omówili także "
          "przedłużenie umowy serwisowej z firmą Kowalski.",
}
LATIN1 = "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ "


def garbage(rnd: random.Random, english: list[str], n: int = 50) -> dict[str, list[float]]:
    def piece() -> str:
        text = rnd.choice(english)
        start = rnd.randrange(0, len(text) - 3000)
        return text[start:start + 3000].lower()

    kinds: dict[str, list[float]] = {"salad": [], "printable": [], "latin1": [], "shifted": []}
    for _ in range(n):
        kinds["salad"].append(word_share(" ".join(
            "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(2, 9)))
            for _ in range(300))))
        kinds["printable"].append(word_share("".join(rnd.choice(
            string.ascii_letters + string.digits + string.punctuation + " ")
            for _ in range(2000))))
        kinds["latin1"].append(word_share("".join(rnd.choice(LATIN1) for _ in range(2000))))
        k = rnd.randint(1, 25)
        kinds["shifted"].append(word_share("".join(
            chr((ord(c) - 97 + k) % 26 + 97) if "a" <= c <= "z" else c for c in piece())))
    return {k: [v for v in vs if v is not None] for k, vs in kinds.items()}


def main() -> None:
    english = [open(p).read() for p in sorted(glob.glob("docs/*.md")) + ["README.md"]]
    null = garbage(random.Random(11), english)
    for kind, values in null.items():
        print(f"garbage {kind:9s} n={len(values):3d}  median {statistics.median(values):.3f}  "
              f"max {max(values):.3f}")
    pooled = sorted(v for values in null.values() for v in values)
    print(f"garbage pooled    n={len(pooled)}  p99 {pooled[int(0.99 * len(pooled))]:.3f}  "
          f"max {pooled[-1]:.3f}")
    for language, text in PROSE.items():
        share = word_share(text * 2)  # twice: past the judged minimum of characters
        print(f"prose {language}  {share:.3f}")
    print(f"GARBLED_SHARE = {GARBLED_SHARE}")


if __name__ == "__main__":
    main()
