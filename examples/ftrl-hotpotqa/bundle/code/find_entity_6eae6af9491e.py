ANSWERS = {"step 1.1 of \"Roger O. Egeberg was Assistant Secretary for Health and Scientific Affairs during the administration of a president that served during what years?\"":"1969 until 1974"}

def find_entity_6eae6af9491e(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
