"""The multilingual judged set (README.md beside it): its documents, queries and judgments
written out in BEIR layout."""
# ruff: noqa: E501 - the texts are data, a line each
import json
from pathlib import Path

T = {
 "lease": {
  "en": ("Lease termination", "Either party may terminate the residential lease with three months' notice, given in writing before the end of a calendar quarter. The landlord returns the deposit within thirty days after the keys are handed back."),
  "de": ("Kündigung des Mietvertrags", "Der Mietvertrag kann von beiden Parteien mit einer Frist von drei Monaten zum Quartalsende schriftlich gekündigt werden. Der Vermieter zahlt die Kaution innerhalb von dreißig Tagen nach Rückgabe der Schlüssel zurück."),
  "fr": ("Résiliation du bail", "Chaque partie peut résilier le bail d'habitation moyennant un préavis de trois mois, notifié par écrit avant la fin d'un trimestre civil. Le bailleur restitue le dépôt de garantie dans les trente jours suivant la remise des clés."),
  "es": ("Rescisión del contrato de arrendamiento", "Cualquiera de las partes puede rescindir el contrato de arrendamiento con un preaviso de tres meses, comunicado por escrito antes del final de un trimestre natural. El arrendador devuelve la fianza en un plazo de treinta días tras la entrega de las llaves."),
 },
 "travel": {
  "en": ("Travel expenses", "Employees are reimbursed for travel expenses such as train tickets, hotel nights and meals when they submit the original receipts within one month of the business trip."),
  "de": ("Reisekosten", "Mitarbeitende erhalten Reisekosten wie Bahnfahrkarten, Hotelübernachtungen und Mahlzeiten erstattet, wenn sie die Originalbelege innerhalb eines Monats nach der Dienstreise einreichen."),
  "fr": ("Frais de déplacement", "Les salariés sont remboursés de leurs frais de déplacement, comme les billets de train, les nuits d'hôtel et les repas, lorsqu'ils remettent les justificatifs originaux dans le mois qui suit le voyage d'affaires."),
  "es": ("Gastos de viaje", "A los empleados se les reembolsan los gastos de viaje, como billetes de tren, noches de hotel y comidas, cuando presentan los recibos originales dentro del mes siguiente al viaje de negocios."),
 },
 "leave": {
  "en": ("Annual leave", "Every full-time employee is entitled to thirty days of paid annual leave per calendar year. Unused holiday days may be carried over until the end of March of the following year."),
  "de": ("Jahresurlaub", "Jede vollzeitbeschäftigte Person hat Anspruch auf dreißig Tage bezahlten Jahresurlaub pro Kalenderjahr. Nicht genommene Urlaubstage können bis Ende März des Folgejahres übertragen werden."),
  "fr": ("Congés annuels", "Chaque salarié à temps plein a droit à trente jours de congés payés par année civile. Les jours de congé non pris peuvent être reportés jusqu'à la fin mars de l'année suivante."),
  "es": ("Vacaciones anuales", "Todo empleado a tiempo completo tiene derecho a treinta días de vacaciones pagadas por año natural. Los días de vacaciones no disfrutados pueden trasladarse hasta finales de marzo del año siguiente."),
 },
 "interest": {
  "en": ("Late payment", "Invoices are payable within thirty days. If the buyer pays late, interest accrues at eight percentage points above the base rate from the day after the due date."),
  "de": ("Zahlungsverzug", "Rechnungen sind innerhalb von dreißig Tagen zahlbar. Zahlt der Käufer verspätet, fallen ab dem Tag nach Fälligkeit Verzugszinsen in Höhe von acht Prozentpunkten über dem Basiszinssatz an."),
  "fr": ("Retard de paiement", "Les factures sont payables à trente jours. En cas de paiement tardif, l'acheteur doit des intérêts de retard de huit points au-dessus du taux de base à compter du lendemain de l'échéance."),
  "es": ("Demora en el pago", "Las facturas deben pagarse en un plazo de treinta días. Si el comprador paga con retraso, se devengan intereses de demora de ocho puntos por encima del tipo básico desde el día siguiente al vencimiento."),
 },
 "privacy": {
  "en": ("Personal data", "Personal data of applicants is deleted six months after the end of the application process unless the candidate consents to a longer storage period in the talent pool."),
  "de": ("Personenbezogene Daten", "Personenbezogene Daten von Bewerbern werden sechs Monate nach Abschluss des Bewerbungsverfahrens gelöscht, sofern die Bewerberin oder der Bewerber nicht in eine längere Speicherung im Talentpool einwilligt."),
  "fr": ("Données personnelles", "Les données personnelles des candidats sont supprimées six mois après la fin de la procédure de recrutement, sauf si le candidat consent à une conservation plus longue dans le vivier de talents."),
  "es": ("Datos personales", "Los datos personales de los candidatos se suprimen seis meses después del final del proceso de selección, salvo que el candidato consienta un plazo de conservación más largo en la bolsa de talento."),
 },
 "fire": {
  "en": ("Fire safety", "An evacuation drill takes place twice a year. Fire extinguishers are inspected annually, and emergency exits must never be blocked by furniture or boxes."),
  "de": ("Brandschutz", "Zweimal im Jahr findet eine Räumungsübung statt. Feuerlöscher werden jährlich geprüft, und Notausgänge dürfen niemals durch Möbel oder Kartons versperrt werden."),
  "fr": ("Sécurité incendie", "Un exercice d'évacuation a lieu deux fois par an. Les extincteurs sont contrôlés chaque année et les issues de secours ne doivent jamais être encombrées par des meubles ou des cartons."),
  "es": ("Seguridad contra incendios", "Dos veces al año se realiza un simulacro de evacuación. Los extintores se revisan anualmente y las salidas de emergencia nunca deben quedar bloqueadas por muebles o cajas."),
 },
 "warranty": {
  "en": ("Warranty", "The supplier warrants that the delivered goods are free from defects for twenty-four months. Defects must be reported in writing within ten days of their discovery."),
  "de": ("Gewährleistung", "Der Lieferant gewährleistet, dass die gelieferten Waren vierundzwanzig Monate lang frei von Mängeln sind. Mängel sind innerhalb von zehn Tagen nach ihrer Entdeckung schriftlich anzuzeigen."),
  "fr": ("Garantie", "Le fournisseur garantit que les marchandises livrées sont exemptes de défauts pendant vingt-quatre mois. Les défauts doivent être signalés par écrit dans les dix jours suivant leur découverte."),
  "es": ("Garantía", "El proveedor garantiza que las mercancías entregadas están libres de defectos durante veinticuatro meses. Los defectos deben comunicarse por escrito en un plazo de diez días desde su descubrimiento."),
 },
 "confidential": {
  "en": ("Confidentiality", "The recipient shall keep all confidential information secret, use it only for the agreed purpose and return or destroy it when the agreement ends."),
  "de": ("Vertraulichkeit", "Der Empfänger hat alle vertraulichen Informationen geheim zu halten, sie nur für den vereinbarten Zweck zu verwenden und sie bei Vertragsende zurückzugeben oder zu vernichten."),
  "fr": ("Confidentialité", "Le destinataire s'engage à garder secrètes toutes les informations confidentielles, à ne les utiliser qu'aux fins convenues et à les restituer ou les détruire à la fin du contrat."),
  "es": ("Confidencialidad", "El receptor mantendrá en secreto toda la información confidencial, la utilizará únicamente para el fin acordado y la devolverá o destruirá cuando finalice el acuerdo."),
 },
 "probation": {
  "en": ("Probation period", "New employees serve a probation period of six months, during which either side may end the employment with two weeks' notice."),
  "de": ("Probezeit", "Neue Mitarbeitende haben eine Probezeit von sechs Monaten, in der beide Seiten das Arbeitsverhältnis mit einer Frist von zwei Wochen beenden können."),
  "fr": ("Période d'essai", "Les nouveaux salariés effectuent une période d'essai de six mois, pendant laquelle chaque partie peut mettre fin au contrat de travail avec un préavis de deux semaines."),
  "es": ("Periodo de prueba", "Los nuevos empleados cumplen un periodo de prueba de seis meses, durante el cual cualquiera de las partes puede poner fin a la relación laboral con un preaviso de dos semanas."),
 },
 "overtime": {
  "en": ("Overtime", "Overtime must be approved in advance by the line manager. Each overtime hour is compensated with time off or paid at one hundred and twenty-five percent of the hourly wage."),
  "de": ("Überstunden", "Überstunden müssen vorab von der Führungskraft genehmigt werden. Jede Überstunde wird durch Freizeit ausgeglichen oder mit hundertfünfundzwanzig Prozent des Stundenlohns vergütet."),
  "fr": ("Heures supplémentaires", "Les heures supplémentaires doivent être autorisées à l'avance par le responsable hiérarchique. Chaque heure supplémentaire est compensée par un repos ou rémunérée à cent vingt-cinq pour cent du salaire horaire."),
  "es": ("Horas extraordinarias", "Las horas extraordinarias deben ser autorizadas previamente por el superior directo. Cada hora extraordinaria se compensa con tiempo libre o se paga al ciento veinticinco por ciento del salario por hora."),
 },
 "water": {
  "en": ("Water damage claim", "Water damage to the building must be reported to the insurer within seven days. The claim needs photographs of the damage and the invoice of the plumber who repaired the burst pipe."),
  "de": ("Wasserschaden", "Wasserschäden am Gebäude sind dem Versicherer innerhalb von sieben Tagen zu melden. Für die Schadensmeldung werden Fotos des Schadens und die Rechnung des Installateurs benötigt, der das geplatzte Rohr repariert hat."),
  "fr": ("Dégât des eaux", "Tout dégât des eaux dans l'immeuble doit être déclaré à l'assureur dans les sept jours. La déclaration de sinistre doit comporter des photos des dommages et la facture du plombier qui a réparé la canalisation éclatée."),
  "es": ("Daños por agua", "Los daños por agua en el edificio deben comunicarse a la aseguradora en un plazo de siete días. La reclamación requiere fotografías de los daños y la factura del fontanero que reparó la tubería reventada."),
 },
 "meeting": {
  "en": ("Annual general meeting", "The annual general meeting of shareholders approves the financial statements, decides on the distribution of profits and elects the members of the supervisory board."),
  "de": ("Hauptversammlung", "Die ordentliche Hauptversammlung der Aktionäre stellt den Jahresabschluss fest, beschließt über die Verwendung des Bilanzgewinns und wählt die Mitglieder des Aufsichtsrats."),
  "fr": ("Assemblée générale", "L'assemblée générale annuelle des actionnaires approuve les comptes annuels, décide de l'affectation des bénéfices et élit les membres du conseil de surveillance."),
  "es": ("Junta general", "La junta general anual de accionistas aprueba las cuentas anuales, decide sobre la distribución de los beneficios y elige a los miembros del consejo de supervisión."),
 },
 "penalty": {
  "en": ("Delivery delay", "For each week of delay in delivery the contractor pays a contractual penalty of half a percent of the order value, capped at five percent in total."),
  "de": ("Lieferverzug", "Für jede Woche Lieferverzug zahlt der Auftragnehmer eine Vertragsstrafe von einem halben Prozent des Auftragswerts, insgesamt höchstens fünf Prozent."),
  "fr": ("Retard de livraison", "Pour chaque semaine de retard de livraison, le prestataire verse une pénalité contractuelle d'un demi pour cent de la valeur de la commande, plafonnée à cinq pour cent au total."),
  "es": ("Retraso en la entrega", "Por cada semana de retraso en la entrega, el contratista paga una penalización contractual del medio por ciento del valor del pedido, con un máximo del cinco por ciento en total."),
 },
 "homeoffice": {
  "en": ("Remote work", "Staff may work from home up to three days a week. The company provides a laptop and a second monitor and pays a monthly allowance for internet costs."),
  "de": ("Homeoffice", "Beschäftigte dürfen bis zu drei Tage pro Woche von zu Hause arbeiten. Das Unternehmen stellt einen Laptop und einen zweiten Bildschirm bereit und zahlt eine monatliche Pauschale für Internetkosten."),
  "fr": ("Télétravail", "Le personnel peut travailler à domicile jusqu'à trois jours par semaine. L'entreprise fournit un ordinateur portable et un second écran et verse une indemnité mensuelle pour les frais d'internet."),
  "es": ("Teletrabajo", "El personal puede trabajar desde casa hasta tres días a la semana. La empresa proporciona un portátil y un segundo monitor y abona una asignación mensual para los gastos de internet."),
 },
 "approval": {
  "en": ("Invoice approval", "Every supplier invoice above ten thousand euros must be approved by two authorised signatories before the accounts department releases the payment."),
  "de": ("Rechnungsfreigabe", "Jede Lieferantenrechnung über zehntausend Euro muss von zwei Zeichnungsberechtigten freigegeben werden, bevor die Buchhaltung die Zahlung anweist."),
  "fr": ("Validation des factures", "Toute facture fournisseur supérieure à dix mille euros doit être validée par deux signataires autorisés avant que le service comptable ne libère le paiement."),
  "es": ("Aprobación de facturas", "Toda factura de proveedor superior a diez mil euros debe ser aprobada por dos firmantes autorizados antes de que el departamento de contabilidad libere el pago."),
 },
}
# queries written for each language: other inflections and forms than the documents use
Q = {
 "en": [("lease", "terminating leases and notice periods"), ("travel", "reimbursing train and hotel receipts"), ("leave", "how many paid holidays per year"), ("interest", "interest on overdue invoices"), ("privacy", "deleting applicant data"), ("fire", "evacuation drills and extinguisher inspections"), ("warranty", "reporting defective goods"), ("overtime", "paying overtime hours"), ("water", "burst pipe insurance claims"), ("approval", "who approves large supplier invoices")],
 "de": [("lease", "Kündigungsfrist für Mietverträge"), ("travel", "Erstattung der Reisekosten"), ("leave", "Urlaubstag übertragen"), ("interest", "Verzugszins bei verspäteter Zahlung"), ("privacy", "Löschung der Bewerberdaten"), ("fire", "Räumungsübungen und Notausgang"), ("warranty", "Mängelanzeige bei gelieferter Ware"), ("probation", "Probezeit kündigen"), ("water", "Wasserschaden melden Versicherung"), ("meeting", "Aufsichtsrat wählen Hauptversammlung")],
 "fr": [("lease", "résilier un bail préavis"), ("travel", "remboursement des frais de voyage"), ("leave", "report des congés non pris"), ("interest", "intérêt de retard facture"), ("privacy", "suppression des données des candidats"), ("confidential", "informations confidentielles restituées"), ("warranty", "défaut signalé marchandise livrée"), ("overtime", "heure supplémentaire rémunérée"), ("penalty", "pénalités de retard de livraison"), ("homeoffice", "télétravail à domicile indemnité")],
 "es": [("lease", "rescindir el arrendamiento con preaviso"), ("travel", "reembolso de gastos de viaje"), ("leave", "días de vacaciones pagados"), ("interest", "interés de demora facturas"), ("fire", "simulacros de evacuación y extintores"), ("warranty", "defectos de la mercancía entregada"), ("probation", "periodo de prueba de los empleados nuevos"), ("meeting", "junta de accionistas beneficios"), ("penalty", "penalizaciones por retrasos de entrega"), ("approval", "aprobar facturas de proveedores")],
}
# the second round (README.md): the documents' words in other forms only, none as written
HARD = {
 "de": [("lease", "gekündigte Mietverträge Fristen"), ("travel", "Dienstreisen Belege erstatten"), ("leave", "Urlaubstagen Übertragung"), ("interest", "Verzugszinses verspäteter Rechnung"), ("privacy", "Speicherungen personenbezogener Daten"), ("fire", "Räumungsübungen Notausgänge versperren"), ("warranty", "Mangel der Ware Lieferanten"), ("overtime", "genehmigte Überstunden vergüten"), ("water", "Wasserschadens Versicherers Rohre"), ("meeting", "Aktionär Jahresabschlusses Aufsichtsrat")],
 "fr": [("lease", "résiliation préavis notifiés bailleurs"), ("travel", "rembourser déplacements justificatif"), ("leave", "congé payé reporter"), ("interest", "intérêt tardifs échéances"), ("privacy", "supprimer donnée personnelle candidat conservations"), ("confidential", "information confidentielle détruite"), ("warranty", "marchandise livrée défaut signaler"), ("overtime", "heure supplémentaire autoriser rémunérer"), ("penalty", "pénalités contractuelles plafond livraisons"), ("homeoffice", "indemnités mensuelles internet")],
 "es": [("lease", "rescisión arrendamientos fianzas devueltas"), ("travel", "reembolsar gasto viajes recibo"), ("leave", "vacación pagada trasladar días no disfrutado"), ("interest", "interés demoras retrasos vencimientos"), ("fire", "simulacros extintor revisar salida bloqueada"), ("warranty", "mercancía entregada defecto comunicar"), ("probation", "periodos de pruebas relaciones laborales"), ("meeting", "juntas generales accionista aprobar cuenta"), ("penalty", "penalizaciones contractuales entregas pedidos"), ("approval", "facturas proveedores aprobación firmante autorizado")],
}
root = Path(__file__).parent
with open(f"{root}/corpus.jsonl", "w") as f:
    for topic, langs in T.items():
        for lang, (title, text) in langs.items():
            f.write(json.dumps({"_id": f"{lang}-{topic}", "title": title, "text": text}, ensure_ascii=False) + "\n")
with open(f"{root}/queries.jsonl", "w") as f, open(f"{root}/qrels/test.tsv", "w") as q:
    q.write("query-id\tcorpus-id\tscore\n")
    for lang, items in Q.items():
        for i, (topic, text) in enumerate(items):
            qid = f"q-{lang}-{i:02d}"
            f.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            q.write(f"{qid}\t{lang}-{topic}\t1\n")
    for lang, items in HARD.items():
        for i, (topic, text) in enumerate(items):
            qid = f"q-{lang}-h{i:02d}"
            f.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            q.write(f"{qid}\t{lang}-{topic}\t1\n")
print(sum(len(v) for v in T.values()), sum(len(v) for v in Q.values()) +
      sum(len(v) for v in HARD.values()))
